import type { LoggerService } from '@nestjs/common';
import { StartUpQuietLogger } from './start-up-quiet.logger';

describe(StartUpQuietLogger.name, () => {
  const lines: string[] = [];
  const record =
    (level: string) =>
    (message: unknown, ...params: unknown[]) =>
      lines.push(`${level} ${String(message)} [${params.join(',')}]`);
  const inner: LoggerService = {
    log: record('info'),
    debug: record('debug'),
    warn: record('warn'),
    error: record('error'),
  };
  const sut = new StartUpQuietLogger(inner);

  beforeEach(() => (lines.length = 0));

  it("logs Nest's module and route lines at debug", () => {
    sut.log('Mapped {/v1/credentials, POST} route', 'RouterExplorer');
    sut.log('CredentialsController {/v1/credentials}:', 'RoutesResolver');
    sut.log('AppModule dependencies initialized', 'InstanceLoader');
    expect(lines).toEqual([
      'debug Mapped {/v1/credentials, POST} route [RouterExplorer]',
      'debug CredentialsController {/v1/credentials}: [RoutesResolver]',
      'debug AppModule dependencies initialized [InstanceLoader]',
    ]);
  });

  it('keeps every other line at its level', () => {
    sut.log('Nest application successfully started', 'NestApplication');
    sut.warn('slow', 'Sync');
    sut.error('down', 'Database');
    expect(lines).toEqual([
      'info Nest application successfully started [NestApplication]',
      'warn slow [Sync]',
      'error down [Database]',
    ]);
  });
});
