import request from 'supertest';
import { appUnderTest } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('document-system-simulator health', () => {
  const app = appUnderTest(() => AppModule.forRoot({ env: { LOG_LEVEL: 'silent' } }), 'Document-system simulator');

  it('is live and ready', async () => {
    await request(app().getHttpServer()).get('/health/live').expect(200);
    await request(app().getHttpServer()).get('/health/ready').expect(200);
  });
});
