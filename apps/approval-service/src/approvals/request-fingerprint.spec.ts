import type { ApprovalRequestDto } from '@app/contracts/payloads';
import { requestIdentity } from './request-fingerprint';

const defaults = { timeoutSeconds: 300, maxRetryAttempts: 3 };
const request = (
  webhook: Partial<ApprovalRequestDto['webhook']> = {},
  rest: Partial<ApprovalRequestDto> = {},
): ApprovalRequestDto => ({
  executionId: 'e1',
  stepId: 's1',
  agentName: 'Procurement agent',
  webhook: { url: 'https://hooks.example.com/a', authentication: { type: 'BearerToken', token: 't1' }, ...webhook },
  stepInput: { a: 1 },
  ...rest,
});

describe(requestIdentity.name, () => {
  it('is the same for a repeat that spells the defaults out or orders keys differently, whatever the step data', () => {
    const spelled = request(
      { authentication: { token: 't1', type: 'BearerToken' }, timeoutSeconds: 300, maxRetryAttempts: 3, message: '' },
      { stepInput: { b: 2 } },
    );
    expect(requestIdentity(spelled, defaults)).toBe(requestIdentity(request(), defaults));
  });

  it.each([
    ['url', request({ url: 'https://hooks.example.com/b' })],
    ['auth value', request({ authentication: { type: 'BearerToken', token: 't2' } })],
    ['timeout', request({ timeoutSeconds: 30 })],
    ['retries', request({ maxRetryAttempts: 0 })],
    ['message', request({ message: 'Approve?' })],
    ['agentName', request({}, { agentName: 'Other agent' })],
  ])('differs when the %s differs', (_name, other) => {
    expect(requestIdentity(other, defaults)).not.toBe(requestIdentity(request(), defaults));
  });
});
