/** Whose delivery slots an approval's attempts take: its tenant's share and, within it, its receiver's part. */
export interface DeliveryTarget {
  tenantId: string;
  webhookUrl: string;
}

/**
 * The receiver of a webhook URL: its origin (scheme, host, port), the server that answers, or hangs, whatever the
 * path. Each receiver of a tenant is a lane of the delivery fair share, holding at most half of the tenant's slots,
 * so one that hangs delays only its own approvals (CONTRACT.md), not those its tenant sends elsewhere.
 */
export function receiverOf(webhookUrl: string): string {
  try {
    return new URL(webhookUrl).origin;
  } catch {
    return webhookUrl; // stored URLs passed the URL policy; should one not parse, it is a receiver of its own
  }
}
