import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEndpointRow } from '../db/queries/integrations';

/** How long the previous secret still signs after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

/** A new signing secret, in the Standard Webhooks form. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks headers of a body: the message id, the time, and a signature per live secret. */
export function signDelivery(endpoint: Pick<WebhookEndpointRow, 'secret' | 'previousSecret' | 'previousSecretUntil'>, eventId: string, at: Date, body: string) {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil.getTime() > at.getTime()) secrets.push(endpoint.previousSecret);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' '),
  };
}
