import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { FaultInjectionMiddleware } from '../document-api/fault-injection.middleware';
import { SimulatorStore } from '../store/simulator-store';
import { AccessTokenRequestDto, ExpireDto, FaultsDto, SettingsDto } from './dto/simulator-controls.dto';

/** For tests and demos (no auth: never expose the simulator publicly): reset, faults, settings, expiry. */
@ApiTags('simulator admin')
@Controller('admin')
export class AdminApiController {
  constructor(
    private readonly store: SimulatorStore,
    private readonly faults: FaultInjectionMiddleware,
  ) {}

  @Post('reset')
  @HttpCode(204)
  @ApiOperation({ summary: 'Back to the seeded project: tree, users, tokens, sessions, faults and statistics' })
  reset() {
    this.store.reset();
    this.faults.reseed(42);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Document-API calls per route, bytes served and faults injected' })
  stats() {
    return this.store.stats;
  }

  @Post('stats/reset')
  @HttpCode(204)
  @ApiOperation({ summary: 'Statistics back to zero' })
  resetStats() {
    this.store.resetStats();
  }

  @Put('faults')
  @ApiOperation({
    summary: 'Inject latency, 429s, 503s, dropped connections and missing content into the document API',
  })
  setFaults(@Body() body: FaultsDto) {
    const { seed, ...faults } = body;
    this.store.faults = { ...this.store.faults, ...definedOnly(faults) };
    if (seed !== undefined) this.faults.reseed(seed);
    return this.store.faults;
  }

  @Put('settings')
  @ApiOperation({ summary: 'Page size of the document API and the lifetime of new sessions' })
  settings(@Body() body: SettingsDto) {
    if (body.pageSize) this.store.pageSize = body.pageSize;
    if (body.sessionTtlSeconds) this.store.sessionTtlSeconds = body.sessionTtlSeconds;
    return { pageSize: this.store.pageSize, sessionTtlSeconds: this.store.sessionTtlSeconds };
  }

  @Post('expire')
  @HttpCode(204)
  @ApiOperation({ summary: 'Expire every access token and/or session issued so far' })
  expire(@Body() body: ExpireDto) {
    if (body.accessTokens) this.store.expireAccessTokens();
    if (body.sessions) this.store.expireSessions();
  }

  @Post('tokens')
  @ApiOperation({ summary: 'An access token without the OAuth dance, for tests of the document API alone' })
  token(@Body() body: AccessTokenRequestDto) {
    const ttl = body.ttlSeconds ?? 3600;
    return { accessToken: this.store.issueAccessToken(body.subject ?? 'test', ttl), expiresIn: ttl };
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
