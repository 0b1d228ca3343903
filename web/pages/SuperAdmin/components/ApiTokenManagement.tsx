import { Alert, Group, Paper, Switch, Text, Title } from '@mantine/core';
import { memo, useCallback, useState } from 'react';
import { INTEGRATION_MESSAGES } from '../../../../common/schemas/integrations';
import { messageOf } from '../../../api/client';
import { useAdminApiTokenPages, useAdminRevokeApiToken, type AdminApiToken } from '../../../api/integrations';
import { ApiTokenCells, apiTokenHeadings } from '../../../components/ApiTokenCells';
import { PagedTable } from '../../../components/PagedTable';
import { RevokeApiTokenDialog } from '../../../components/RevokeApiTokenDialog';
import { SearchInput } from '../../../components/SearchInput';
import { usePagedRows } from '../../../lib/pagedRows';

const HEADINGS = apiTokenHeadings(true);
const keyOf = (t: AdminApiToken) => t.id;
const tokensOf = (page: { tokens: AdminApiToken[] }) => page.tokens;

/**
 * Every tenant's API tokens, newest first, searched by the token's or the tenant's name on the
 * server and loaded a page at a time as the panel's other tables (docs/decisions/0135-admin-api-tokens.md);
 * any of them can be revoked after a confirmation.
 */
export const ApiTokenManagement = memo(function ApiTokenManagement() {
  const [query, setQuery] = useState('');
  const [showRevoked, setShowRevoked] = useState(false);
  const pages = useAdminApiTokenPages(query, showRevoked);
  const { rows, loadMore } = usePagedRows(pages, tokensOf);
  const revoke = useAdminRevokeApiToken();
  const [revoking, setRevoking] = useState<AdminApiToken | null>(null);
  const cells = useCallback((t: AdminApiToken) => <ApiTokenCells token={t} services={t.service_names} revokedAt={t.revoked_at} onRevoke={setRevoking} />, []);
  const complete = !pages.hasNextPage && !pages.isLoading;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="api-token-management">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={2} size="h3" id="api-token-management">
          API Tokens
        </Title>
        <Switch label="Show Revoked Tokens" checked={showRevoked} onChange={(e) => setShowRevoked(e.currentTarget.checked)} />
      </Group>
      <Group mb="md" wrap="wrap">
        <SearchInput label="Search API tokens" placeholder="Search by token or tenant name" onSearch={setQuery} miw={260} />
      </Group>
      {pages.isError ? (
        <Alert color="red" mb="md">
          {messageOf(pages.error, INTEGRATION_MESSAGES.failedLoadTokens)}
        </Alert>
      ) : null}
      <PagedTable
        label="API tokens of every tenant"
        headings={HEADINGS}
        rows={rows}
        rowKey={keyOf}
        cells={cells}
        complete={complete}
        onNearEnd={loadMore}
        minWidth={960}
      />
      {complete && rows.length === 0 ? (
        <Text c="dimmed" mt="sm">
          {query ? 'No API tokens found.' : 'No API tokens.'}
        </Text>
      ) : null}
      <RevokeApiTokenDialog token={revoking} revoke={revoke} onClose={() => setRevoking(null)} />
    </Paper>
  );
});
