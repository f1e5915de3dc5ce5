import { describe, expect, it } from 'vitest';
import { defaultRecoveryForm, recoveryRequest, toLocalInput } from '../../src/screens/subscribers/recovery-form-model';

describe('the recover form', () => {
  it('defaults to the last hour of failed deliveries', () => {
    const now = new Date(2025, 0, 31, 12, 30, 45);
    expect(defaultRecoveryForm(now)).toEqual({ since: '2025-01-31T11:30', until: '', statuses: ['FAILED'] });
  });

  it('sends local times as ISO instants, and until only when given', () => {
    const since = toLocalInput(new Date(2025, 0, 31, 11, 0));
    const until = toLocalInput(new Date(2025, 0, 31, 12, 0));
    expect(recoveryRequest({ since, until: '', statuses: ['FAILED'] })).toEqual({
      request: { since: new Date(2025, 0, 31, 11, 0).toISOString(), statuses: ['FAILED'] },
    });
    expect(recoveryRequest({ since, until, statuses: ['FAILED', 'DELIVERED'] })).toEqual({
      request: { since: new Date(2025, 0, 31, 11, 0).toISOString(), until: new Date(2025, 0, 31, 12, 0).toISOString(), statuses: ['FAILED', 'DELIVERED'] },
    });
  });

  it('says what is wrong instead of asking the API for nothing', () => {
    expect(recoveryRequest({ since: '', until: '', statuses: ['FAILED'] })).toEqual({ problem: 'Choose when the range starts.' });
    expect(recoveryRequest({ since: '2025-01-31T11:00', until: '', statuses: [] })).toEqual({ problem: 'Choose at least one status to send again.' });
    expect(recoveryRequest({ since: '2025-01-31T11:00', until: '2025-01-31T10:00', statuses: ['FAILED'] })).toEqual({
      problem: 'The end of the range must come after its start.',
    });
  });
});
