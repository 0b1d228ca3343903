import { Alert, Anchor, Button, CopyButton, Group, Paper, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useState, type CSSProperties } from 'react';
import { PUBLISHING_MESSAGES as P } from '../../../common/schemas/publishing';
import { messageOf } from '../../api/client';
import { publicAddress, useSetPublished } from '../../api/publishing';
import { useHasPublicEdition } from '../../api/settings';
import type { Service } from '../../api/services';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { notifySuccess } from '../../lib/notify';

/**
 * Public page (admins of the service): publishing on or off, and the address to share
 * (docs/decisions/0120-public-pages.md). A new edition is published by taking a public snapshot.
 */
export function PublishingPanel({ service, tenantSlug }: { service: Service; tenantSlug: string }) {
  const setPublished = useSetPublished(service.id);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const address = publicAddress(tenantSlug, service.slug);

  const apply = (published: boolean) => {
    setError(null);
    setPublished.mutateAsync(published).then(
      () => {
        setConfirming(false);
        notifySuccess(published ? P.published : P.unpublished);
      },
      (err: unknown) => {
        setConfirming(false);
        setError(messageOf(err, published ? P.failedPublish : P.failedUnpublish));
      },
    );
  };

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="public-page-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="public-page-title">
          Public page
        </Title>
        <Switch
          label="Publish this service"
          description="Anyone with the address can read its latest public snapshot, without signing in. Private aspects and internal snapshots never appear."
          checked={service.published}
          disabled={setPublished.isPending || (service.archived && !service.published)}
          onChange={(e) => (e.currentTarget.checked ? apply(true) : setConfirming(true))}
        />
        {error ? (
          <Text c="red.9" size="sm" role="alert">
            {error}
          </Text>
        ) : null}
        {service.published ? (
          <>
            <Group gap="xs" align="end" wrap="wrap">
              <TextInput label="Public address" value={address} readOnly style={{ flex: '1 1 16rem', minWidth: 0 }} onFocus={(e) => e.currentTarget.select()} />
              <CopyButton value={address}>
                {({ copied, copy }) => (
                  <Button variant="default" onClick={copy} aria-live="polite">
                    {copied ? 'Copied' : 'Copy address'}
                  </Button>
                )}
              </CopyButton>
              <Button component="a" variant="default" href={address} target="_blank" rel="noopener">
                Open public page
              </Button>
            </Group>
            <Text size="sm">
              Take a public snapshot (Create Snapshot, visibility Public) to publish a new edition; readers see what changed since the previous one. The page is
              also followed as an <Anchor href={`${address}/feed.atom`}>Atom feed</Anchor>.
            </Text>
          </>
        ) : (
          <Text size="sm" c="dimmed">
            Not published: the public address answers “Page not found”.
          </Text>
        )}
      </Stack>
      <ConfirmDialog
        opened={confirming}
        title="Unpublish service?"
        message={`The public page of "${service.name}" and its feed stop answering at once. Links already shared will show “Page not found”.`}
        confirmLabel="Unpublish"
        busy={setPublished.isPending}
        onConfirm={() => apply(false)}
        onClose={() => setConfirming(false)}
      />
    </Paper>
  );
}

/**
 * A published service without a public snapshot: its address answers the one "Page not found" of
 * every unknown address (decision 0120), so its editors are told here, with the way out.
 */
export function NoPublicEditionHint({ service, onCreateSnapshot }: { service: Service; onCreateSnapshot: () => void }) {
  const hasEdition = useHasPublicEdition(service.id);
  if (!service.published || hasEdition !== false) return null;
  return (
    <Alert
      color="yellow"
      title="No public edition yet"
      data-testid="no-public-edition"
      style={{ '--alert-color': 'var(--mantine-color-dark-7)' } as CSSProperties}
    >
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          This service is published, but its public page shows the latest public snapshot and there is none: its address answers “Page not found”.
        </Text>
        <Button size="xs" onClick={onCreateSnapshot}>
          Create public snapshot
        </Button>
      </Stack>
    </Alert>
  );
}
