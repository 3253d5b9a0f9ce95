import { describeKubernetesManifests } from '@app/testing';
import { ConnectorEnv } from '../src/connector-env';

describeKubernetesManifests('connector-service', ConnectorEnv);
