import { describeKubernetesManifests } from '@app/testing';
import { ApprovalEnv } from '../src/approval-env';

describeKubernetesManifests('approval-service', ApprovalEnv);
