import request from 'supertest';
import { metricValue } from '@app/testing';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * Express refuses a body over 1 MiB (413) and malformed JSON (400) in its body parsers. An operator looking
 * for a flood of oversized or broken requests must find them in the request log and in
 * http_request_duration_seconds, as the approval-service (Fastify) shows them.
 */
describe('Connector-service requests refused for their body', () => {
  let sut: ConnectorTestApp;
  const lines: string[] = [];
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startConnectorApp({ env: { LOG_LEVEL: 'info', METRICS_PUBLIC: true }, logLines: lines });
  });
  afterAll(() => sut?.close());

  it('logs a request line and counts a request duration under the route for a 413 and a malformed-JSON 400', async () => {
    const tooLarge = await http()
      .post('/v1/credentials')
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'refused-too-large')
      .send(`"${'x'.repeat(2 * 1024 * 1024)}"`)
      .expect(413);
    expect(tooLarge.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    const malformed = await http()
      .post('/v1/credentials')
      .set('X-Request-Id', 'refused-malformed')
      .type('json')
      .send('{"name": ')
      .expect(400);
    expect(malformed.body).toMatchObject({ statusCode: 400, code: 'MALFORMED_JSON' });
    // A request that gets past the parsers, for comparison.
    await http().post('/v1/credentials').set('X-Request-Id', 'refused-unauthenticated').send({}).expect(401);

    const logged = (id: string) => lines.some((line) => JSON.parse(line).req?.id === id);
    const metrics = (await http().get('/metrics').expect(200)).text;
    const counted = (status: string) =>
      metricValue(metrics, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/credentials',
        status_code: status,
      });
    expect({
      loggedUnauthenticated: logged('refused-unauthenticated'),
      loggedTooLarge: logged('refused-too-large'),
      loggedMalformed: logged('refused-malformed'),
      counted401: counted('401'),
      counted413: counted('413'),
      counted400: counted('400'),
    }).toEqual({
      loggedUnauthenticated: true,
      loggedTooLarge: true,
      loggedMalformed: true,
      counted401: 1,
      counted413: 1,
      counted400: 1,
    });
  });
});
