// The keys that seal subscriber secrets at rest (crypto/secret-box.ts).

export interface MasterKeys {
  /** Key id used to seal new secrets. */
  current: string;
  /** Every known key: 32 bytes, raw or base64. Old ids stay here so older secrets can still be opened. */
  keys: Record<string, Uint8Array | string>;
}
