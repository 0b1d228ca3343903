import { Button } from '@mantine/core';
import { messageOf } from '../../api/client';
import { useSendTestEvent, type WebhookTestResult } from '../../api/integrations';
import { INTEGRATION_MESSAGES as M } from '../../../common/schemas/integrations';
import { notifyOne } from '../../lib/notify';
import { NOTIFICATION_AUTOCLOSE_MS } from '../../../common/limits';

/** What one test event's attempt gave, in words. */
export function testEventOutcome(r: WebhookTestResult): string {
  if (r.ok) return `Test event delivered: the endpoint answered HTTP ${r.status} in ${r.duration_ms} ms.`;
  if (r.status !== null) return `Test event not accepted: the endpoint answered HTTP ${r.status}.`;
  return `Test event not delivered: ${r.error ?? 'no answer'}.`;
}

/** "Send test event" of one endpoint: a signed webhook.test event now, and what came of it. */
export function SendTestEventButton({ webhookId, url }: { webhookId: string; url: string }) {
  const send = useSendTestEvent();
  const say = (message: string, ok: boolean) =>
    notifyOne({ color: ok ? 'green' : 'red', message, role: ok ? 'status' : 'alert', autoClose: NOTIFICATION_AUTOCLOSE_MS, withCloseButton: true });
  return (
    <Button
      size="xs"
      variant="default"
      loading={send.isPending}
      aria-label={`Send test event to ${url}`}
      onClick={() =>
        send.mutate(webhookId, {
          onSuccess: (r) => say(testEventOutcome(r), r.ok),
          onError: (err) => say(messageOf(err, M.failedTestEvent), false),
        })
      }
    >
      Send test event
    </Button>
  );
}
