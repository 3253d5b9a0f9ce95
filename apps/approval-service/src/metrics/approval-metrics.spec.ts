import { deliveryOutcome } from './approval-metrics';

describe(deliveryOutcome.name, () => {
  const attempt = (httpStatus: number | null, error: string | null, delivered = false) => ({
    delivered,
    httpStatus,
    error,
  });

  it('names an attempt by a fixed set of outcomes, never by what the receiver answered', () => {
    expect(deliveryOutcome(attempt(202, null, true))).toBe('delivered');
    expect(deliveryOutcome(attempt(404, 'HTTP 404'))).toBe('http_4xx');
    expect(deliveryOutcome(attempt(503, 'HTTP 503'))).toBe('http_5xx');
    expect(deliveryOutcome(attempt(302, 'HTTP 302'))).toBe('http_other');
    expect(deliveryOutcome(attempt(null, 'No answer within 5 s'))).toBe('timeout');
    expect(deliveryOutcome(attempt(null, 'Could not connect to the webhook URL'))).toBe('unreachable');
  });
});
