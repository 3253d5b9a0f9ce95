import { createContext, ReactNode, useContext, useMemo } from 'react';
import { approvalApi, ApprovalApi } from '../api/approval-api';
import { connectorApi, ConnectorApi } from '../api/connector-api';
import { createHttpClient } from '../api/http-client';
import type { ConsoleConfig } from '../api/types';
import type { Session } from './session';

export interface ConsoleContextValue {
  config: ConsoleConfig;
  session: Session;
  projectId: string;
  connector: ConnectorApi;
  approvals: ApprovalApi;
}

const Context = createContext<ConsoleContextValue | null>(null);

export function ConsoleProvider(props: {
  config: ConsoleConfig;
  session: Session;
  projectId: string;
  onUnauthenticated: () => void;
  children: ReactNode;
}) {
  const { config, session, projectId, onUnauthenticated } = props;
  const value = useMemo<ConsoleContextValue>(() => {
    const token = () => session.token;
    return {
      config,
      session,
      projectId,
      connector: connectorApi(createHttpClient('connector-service', '', token, onUnauthenticated)),
      approvals: approvalApi(createHttpClient('approval-service', config.approvalServiceUrl, token, onUnauthenticated)),
    };
  }, [config, session, projectId, onUnauthenticated]);
  return <Context.Provider value={value}>{props.children}</Context.Provider>;
}

export function useConsole(): ConsoleContextValue {
  const value = useContext(Context);
  if (!value) throw new Error('useConsole outside ConsoleProvider');
  return value;
}
