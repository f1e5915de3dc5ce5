// Recovery of a subscriber's deliveries over a time range: the request and the job resource.
import { Type, type Static } from 'typebox';
import { DateTime, NullableDateTime } from './common.js';

export const RecoverableStatus = Type.Union([Type.Literal('FAILED'), Type.Literal('DELIVERED')], {
  description: 'A settled delivery status a recovery may send again.',
});
export type RecoverableStatus = Static<typeof RecoverableStatus>;

export const RecoveryState = Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'), Type.Literal('COMPLETED')]);
export type RecoveryState = Static<typeof RecoveryState>;

export const RecoveryRequest = Type.Object(
  {
    since: { ...DateTime, description: 'Deliveries created at or after this instant are recovered.' },
    until: Type.Optional({ ...DateTime, description: 'Deliveries created before this instant (default: when the recovery was asked for).' }),
    statuses: Type.Optional(Type.Array(RecoverableStatus, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'Which settled statuses to send again (default FAILED).' })),
  },
  {
    additionalProperties: false,
    title: 'RecoveryRequest',
    description: "Which of a subscriber's settled deliveries to send again: those created in [since, until) with one of the statuses.",
    examples: [{ since: '2025-01-31T00:00:00.000Z', statuses: ['FAILED'] }],
  },
);
export type RecoveryRequest = Static<typeof RecoveryRequest>;

export const Recovery = Type.Object(
  {
    recoveryId: Type.String(),
    subscriberId: Type.String({ description: 'The subscriber handle.' }),
    since: DateTime,
    until: DateTime,
    statuses: Type.Array(RecoverableStatus),
    status: RecoveryState,
    requeued: Type.Integer({ minimum: 0, description: 'Deliveries sent back to PENDING so far.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
    completedAt: NullableDateTime,
  },
  {
    additionalProperties: false,
    title: 'Recovery',
    description: 'A recovery and its progress: QUEUED, then RUNNING while it sends rows back, then COMPLETED.',
    examples: [
      {
        recoveryId: 'rec_5f2b9c1e0a7d4e63',
        subscriberId: 'billing',
        since: '2025-01-31T00:00:00.000Z',
        until: '2025-01-31T12:00:00.000Z',
        statuses: ['FAILED'],
        status: 'RUNNING',
        requeued: 200,
        createdAt: '2025-01-31T12:00:00.000Z',
        updatedAt: '2025-01-31T12:00:01.000Z',
        completedAt: null,
      },
    ],
  },
);
export type Recovery = Static<typeof Recovery>;

/** Rows one recovery step sends back; the job runs a step per second, so this bounds the rate. */
export const RECOVERY_ROWS_PER_STEP = 200;
