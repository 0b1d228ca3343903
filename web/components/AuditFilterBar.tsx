import { Button, Group, Select } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../common/messages';
import { AUDIT_KINDS, type AuditKind } from '../../common/schemas/audit';
import { exportAudit, useAuditActors, type AuditFilters } from '../api/audit';
import { messageOf } from '../api/client';
import { useServices } from '../api/services';
import { MessageBar } from './MessageBar';

const KIND_OPTIONS = Object.entries(AUDIT_KINDS).map(([value, kind]) => ({ value, label: kind.label }));

/** The service and actor filters of the tenant's own log: its services and everyone its log names. */
function TenantFilters({ filters, onChange }: { filters: AuditFilters; onChange: (next: AuditFilters) => void }) {
  const services = useServices(true);
  const actors = useAuditActors();
  const serviceOptions = (services.data?.services ?? []).map((s) => ({ value: s.id, label: s.name }));
  const actorOptions = (actors.data?.actors ?? []).map((a) => ({ value: a.id, label: a.label }));
  return (
    <>
      <Select
        label="Service"
        placeholder="Every service"
        data={serviceOptions}
        value={filters.serviceId ?? null}
        onChange={(v) => onChange({ ...filters, serviceId: v ?? undefined })}
        searchable
        clearable
        w={{ base: '100%', sm: 220 }}
      />
      <Select
        label="Person or token"
        placeholder="Anyone"
        data={actorOptions}
        value={filters.actorId ?? null}
        onChange={(v) => onChange({ ...filters, actorId: v ?? undefined })}
        searchable
        clearable
        w={{ base: '100%', sm: 220 }}
      />
    </>
  );
}

export interface AuditFilterBarProps {
  filters: AuditFilters;
  onChange: (next: AuditFilters) => void;
  /** The panel's log (by kind only: its services and people are another tenant's); null: the tenant's own. */
  panel: { tenantId: string | null } | null;
}

/** What the audit log shows: by service, person or token, and kind of change; and its export as CSV, narrowed the same way. */
export function AuditFilterBar({ filters, onChange, panel }: AuditFilterBarProps) {
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setExporting(true);
    setError(null);
    try {
      await exportAudit(filters, panel);
    } catch (err) {
      setError(messageOf(err, M.failedLoadData));
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <MessageBar message={error} onClose={() => setError(null)} />
      <Group align="flex-end" gap="sm" mb="md" wrap="wrap">
        {panel ? null : <TenantFilters filters={filters} onChange={onChange} />}
        <Select
          label="Kind of change"
          placeholder="Every kind"
          data={KIND_OPTIONS}
          value={filters.kind ?? null}
          onChange={(v) => onChange({ ...filters, kind: (v as AuditKind | null) ?? undefined })}
          clearable
          w={{ base: '100%', sm: 260 }}
        />
        <Button variant="default" onClick={() => void download()} loading={exporting}>
          Export CSV
        </Button>
      </Group>
    </>
  );
}
