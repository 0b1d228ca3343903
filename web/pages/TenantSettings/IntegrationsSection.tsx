import { SendTestEventButton } from './SendTestEventButton';
import { Alert, Button, Checkbox, Group, MultiSelect, NativeSelect, Paper, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { memo, useState } from 'react';
import { z } from 'zod';
import {
  createApiTokenSchema,
  INTEGRATION_MESSAGES,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENTS,
  createWebhookSchema,
  type WebhookEvent,
} from '../../../common/schemas/integrations';
import type { Role } from '../../../common/roles';
import { messageOf } from '../../api/client';
import {
  useApiTokens,
  useCreateApiToken,
  useCreateWebhook,
  useDeleteWebhook,
  useReissueApiToken,
  useRevokeApiToken,
  useUpdateWebhook,
  useWebhooks,
  type ApiToken,
  type WebhookEndpoint,
} from '../../api/integrations';
import { useServices } from '../../api/services';
import { CatalogModal } from '../../components/CatalogModal';
import { SecretModal } from '../../components/SecretModal';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DeliveryLog } from './DeliveryLog';
import { ModalForm } from '../../components/ModalForm';
import { ApiTokenCells, apiTokenHeadings } from '../../components/ApiTokenCells';
import { RevokeApiTokenDialog } from '../../components/RevokeApiTokenDialog';
import { DONE, notifySuccess } from '../../lib/notify';
import { ROLE_OPTIONS } from '../../lib/roles';
import { useFreshOnOpen, useSchemaForm } from '../../lib/schemaForm';
import { useSubmit } from '../../lib/useSubmit';

const M = INTEGRATION_MESSAGES;

const tokenForm = z.object({
  name: createApiTokenSchema.shape.name,
  role: createApiTokenSchema.shape.role,
  serviceIds: z.array(z.string()),
  expires: z.string().refine((v) => !v || Date.parse(`${v}T23:59:59Z`) > Date.now(), M.tokenExpiryInPast),
});

interface TokenValues {
  name: string;
  role: Role | '';
  serviceIds: string[];
  expires: string;
  [key: string]: unknown;
}

function CreateTokenModal({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (secret: string) => void }) {
  const form = useSchemaForm<TokenValues>(tokenForm, { name: '', role: '', serviceIds: [], expires: '' });
  const create = useCreateApiToken();
  const services = useServices(false);
  const { busy, error, setError, run } = useSubmit('Failed to create the API token');
  useFreshOnOpen(opened, form, setError);

  const submit = form.onSubmit(async (values) => {
    let secret = '';
    const ok = await run(async () => {
      const created = await create.mutateAsync({
        name: values.name.trim(),
        role: values.role as Role,
        serviceIds: values.serviceIds.length ? values.serviceIds : null,
        expiresAt: values.expires ? new Date(`${values.expires}T23:59:59Z`).toISOString() : null,
      });
      secret = created.secret;
    });
    if (ok) {
      form.reset();
      onClose();
      onCreated(secret);
    }
  });

  const options = (services.data?.services ?? []).map((s) => ({ value: s.id, label: s.name }));
  return (
    <CatalogModal opened={opened} onClose={onClose} title="Create API token" dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Create token">
        <TextInput label="Name" withAsterisk data-autofocus description="Who or what uses it, e.g. Release pipeline" {...form.getInputProps('name')} />
        <NativeSelect label="Role" withAsterisk data={[{ value: '', label: 'Select a role' }, ...ROLE_OPTIONS]} {...form.getInputProps('role')} />
        <MultiSelect
          label="Limit to services"
          description="Leave empty for every service of the tenant"
          data={options}
          searchable
          clearable
          {...form.getInputProps('serviceIds')}
        />
        <TextInput label="Expires on" type="date" description="Leave empty for no expiry" {...form.getInputProps('expires')} />
      </ModalForm>
    </CatalogModal>
  );
}

const TOKEN_HEADINGS = apiTokenHeadings(false);

function ApiTokensPanel() {
  const tokens = useApiTokens();
  const revoke = useRevokeApiToken();
  const reissue = useReissueApiToken();
  const services = useServices(false);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [reissuing, setReissuing] = useState<ApiToken | null>(null);
  const [reissueError, setReissueError] = useState<string | null>(null);
  const serviceName = new Map((services.data?.services ?? []).map((s) => [s.id, s.name]));
  const rows = tokens.data ?? [];

  return (
    <Paper withBorder p="md" radius="md" mt="md" component="section" aria-labelledby="tenant-api-tokens">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="tenant-api-tokens">
          API tokens
        </Title>
        <Button onClick={() => setCreating(true)}>+ Create API token</Button>
      </Group>
      <Text c="dimmed" size="sm" mb="sm">
        Integrations call the API with a token: <code>Authorization: Bearer &lt;secret&gt;</code>. See the API reference at <a href="/api/docs">/api/docs</a>.
      </Text>
      {tokens.isError ? <Alert color="red">{messageOf(tokens.error, M.failedLoadTokens)}</Alert> : null}
      {reissueError ? (
        <Alert color="red" withCloseButton onClose={() => setReissueError(null)} closeButtonLabel="Dismiss">
          {reissueError}
        </Alert>
      ) : null}
      {rows.length > 0 ? (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label="API tokens">
            <Table.Thead>
              <Table.Tr>
                {TOKEN_HEADINGS.map((h) => (
                  <Table.Th key={h}>{h === 'Actions' ? <VisuallyHidden>{h}</VisuallyHidden> : h}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((t) => (
                <Table.Tr key={t.id}>
                  <ApiTokenCells
                    token={t}
                    services={t.service_ids ? t.service_ids.map((id) => serviceName.get(id) ?? id) : null}
                    onRevoke={setRevoking}
                    onReissue={setReissuing}
                  />
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {!tokens.isLoading && rows.length === 0 ? <Text c="dimmed">No API tokens yet</Text> : null}

      <CreateTokenModal opened={creating} onClose={() => setCreating(false)} onCreated={(value) => setSecret({ title: 'API token created', value })} />
      <SecretModal title={secret?.title ?? ''} secret={secret?.value ?? null} note={M.tokenCreated} onClose={() => setSecret(null)} />
      <ConfirmDialog
        opened={reissuing !== null}
        title="Re-issue API token"
        message={`Re-issue ${reissuing?.name ?? ''} under your name? It gets a new secret, shown once; the integration must be given it.`}
        confirmLabel="Re-issue"
        onClose={() => setReissuing(null)}
        onConfirm={() => {
          const target = reissuing!;
          setReissuing(null);
          setReissueError(null);
          reissue.mutate(target.id, {
            onSuccess: (res) => setSecret({ title: 'API token re-issued', value: res.secret }),
            onError: (err) => setReissueError(messageOf(err, 'Failed to re-issue the API token')),
          });
        }}
      />
      <RevokeApiTokenDialog token={revoking} revoke={revoke} onClose={() => setRevoking(null)} />
    </Paper>
  );
}

interface WebhookValues {
  url: string;
  events: WebhookEvent[];
  role: Role;
  [key: string]: unknown;
}

function CreateWebhookModal({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (secret: string) => void }) {
  const form = useSchemaForm<WebhookValues>(createWebhookSchema, { url: '', events: [], role: 'reader' });
  const create = useCreateWebhook();
  const { busy, error, setError, run } = useSubmit('Failed to create the webhook');
  useFreshOnOpen(opened, form, setError);

  const submit = form.onSubmit(async (values) => {
    let secret = '';
    const ok = await run(async () => {
      secret = (await create.mutateAsync({ url: values.url.trim(), events: values.events, role: values.role })).secret;
    });
    if (ok) {
      form.reset();
      onClose();
      onCreated(secret);
    }
  });

  return (
    <CatalogModal opened={opened} onClose={onClose} title="Add webhook" dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Add webhook">
        <TextInput label="Endpoint URL" withAsterisk data-autofocus placeholder="https://example.com/hooks/catalog" {...form.getInputProps('url')} />
        <Checkbox.Group label="Events" withAsterisk {...form.getInputProps('events')}>
          <Stack gap={6} mt={6}>
            {WEBHOOK_EVENTS.map((e) => (
              <Checkbox key={e} value={e} label={`${WEBHOOK_EVENT_LABELS[e]} (${e})`} />
            ))}
          </Stack>
        </Checkbox.Group>
        <NativeSelect
          label="Sees content as"
          description="Private aspects and internal snapshots go only to editor and admin"
          data={ROLE_OPTIONS}
          {...form.getInputProps('role')}
        />
      </ModalForm>
    </CatalogModal>
  );
}

function WebhooksPanel() {
  const webhooks = useWebhooks();
  const remove = useDeleteWebhook();
  const update = useUpdateWebhook();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const [logOf, setLogOf] = useState<WebhookEndpoint | null>(null);
  const rows = webhooks.data ?? [];

  return (
    <Paper withBorder p="md" radius="md" mt="md" component="section" aria-labelledby="tenant-webhooks">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="tenant-webhooks">
          Webhooks
        </Title>
        <Button onClick={() => setCreating(true)}>+ Add webhook</Button>
      </Group>
      {webhooks.isError ? <Alert color="red">{messageOf(webhooks.error, 'Failed to load webhooks')}</Alert> : null}
      {rows.length > 0 ? (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label="Webhooks">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Endpoint</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((h) => (
                <Table.Tr key={h.id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{h.url}</Table.Td>
                  <Table.Td>{h.events.join(', ')}</Table.Td>
                  <Table.Td>
                    {h.enabled ? (
                      <Text size="sm" fw={600}>
                        Active
                      </Text>
                    ) : (
                      <Text size="sm" fw={600}>
                        {h.disabled_reason === 'failing' ? M.webhookDisabledFailing : 'Disabled'}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => setLogOf(h)} aria-label={`Delivery log of ${h.url}`}>
                        Delivery log
                      </Button>
                      <SendTestEventButton webhookId={h.id} url={h.url} />
                      {h.enabled ? null : (
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => update.mutate({ id: h.id, enabled: true }, { onSuccess: () => notifySuccess(DONE.webhookEnabled) })}
                          aria-label={`Enable ${h.url}`}
                        >
                          Enable
                        </Button>
                      )}
                      <Button size="xs" color="red" variant="light" onClick={() => setDeleting(h)} aria-label={`Delete ${h.url}`}>
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {!webhooks.isLoading && rows.length === 0 ? <Text c="dimmed">No webhooks yet</Text> : null}

      <CreateWebhookModal opened={creating} onClose={() => setCreating(false)} onCreated={setSecret} />
      <SecretModal
        title="Webhook added"
        secret={secret}
        note={`${M.webhookCreated} Receivers verify each delivery's webhook-signature header with it (Standard Webhooks).`}
        onClose={() => setSecret(null)}
      />
      <DeliveryLog webhook={logOf} onClose={() => setLogOf(null)} />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete webhook"
        message={`Delete the webhook to ${deleting?.url ?? ''}? Its delivery log goes with it. This cannot be undone.`}
        confirmLabel="Delete"
        busy={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          remove.mutate(deleting!.id, {
            onSuccess: () => {
              setDeleting(null);
              notifySuccess(M.webhookDeleted);
            },
          });
        }}
      />
    </Paper>
  );
}

/** Tenant Settings' integrations: API tokens and webhooks (docs/api.md). */
export const IntegrationsSection = memo(function IntegrationsSection() {
  return (
    <>
      <ApiTokensPanel />
      <WebhooksPanel />
    </>
  );
});
