import type { AxiosRequestConfig } from 'axios';
import type { Duplex } from 'node:stream';
import { Agent as HttpAgent, AgentOptions as HttpAgentOptions, ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import { OutboundAddressRefused, OutboundUrlPolicy } from './outbound-url-policy';

type ConnectCallback = (error: Error | null, stream: Duplex) => void;

/** Judges every connection: an IP-literal host here (Node skips the lookup for those), a name in `lookup`. */
function guarded<T extends typeof HttpAgent | typeof HttpsAgent>(Base: T, policy: OutboundUrlPolicy) {
  return class extends (Base as typeof HttpAgent) {
    createConnection(options: ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
      if (policy.refusesHost(options.host ?? options.hostname)) {
        process.nextTick(() => callback?.(new OutboundAddressRefused(), undefined as never));
        return undefined;
      }
      return super.createConnection(options, callback);
    }
  };
}

export interface GuardedAgents {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
  destroy(): void;
}

/** Keep-alive agents whose every connection follows the policy. */
export function guardedAgents(
  policy: OutboundUrlPolicy,
  options: HttpAgentOptions & HttpsAgentOptions = {},
): GuardedAgents {
  const agentOptions = { keepAlive: true, ...options, lookup: policy.lookup as HttpAgentOptions['lookup'] };
  const httpAgent = new (guarded(HttpAgent, policy))(agentOptions);
  const httpsAgent = new (guarded(HttpsAgent, policy))(agentOptions) as HttpsAgent;
  return {
    httpAgent,
    httpsAgent,
    destroy: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/**
 * The axios settings every outbound call shares: the guarded agents, redirects never followed (a
 * redirect could point anywhere), and never an environment proxy (the policy judges the address
 * actually connected to, which a proxy would hide).
 */
export function outboundAxiosConfig(
  agents: GuardedAgents,
): Pick<AxiosRequestConfig, 'httpAgent' | 'httpsAgent' | 'maxRedirects' | 'proxy'> {
  return { httpAgent: agents.httpAgent, httpsAgent: agents.httpsAgent, maxRedirects: 0, proxy: false };
}
