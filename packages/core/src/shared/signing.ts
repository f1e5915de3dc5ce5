// The body and signature conventions, owned by @herald/receiver so sender and receiver cannot disagree.
export type { SigningProfile } from '@herald/receiver';
