import type { MemberView } from '@app/contracts/views';
import type { DataSourceMemberEntity } from '../data-source-member.entity';

export function memberResponse(m: Pick<DataSourceMemberEntity, 'userId' | 'addedBy' | 'createdAt'>): MemberView {
  return { userId: m.userId, addedBy: m.addedBy, createdAt: m.createdAt.toISOString() };
}
