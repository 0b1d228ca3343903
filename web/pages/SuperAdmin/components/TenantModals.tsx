import { Alert, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { M } from '../../../../common/messages';
import { DELETE_CONFIRMATION_WORD } from '../../../../common/limits';
import { SLUG_PATTERN, autoSlug } from '../../../../common/slug';
import type { Tenant } from '../../../api/tenants';

interface FormProps {
  opened: boolean;
  onClose: () => void;
}

/** Runs a submit, keeping its error inline in the modal. */
function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err instanceof Error ? err.message : M.requestFailed);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** Create Tenant: the slug follows the name until it is edited by hand. */
export function CreateTenantModal({ opened, onClose, onCreate }: FormProps & { onCreate: (input: { name: string; slug: string }) => Promise<void> }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const { busy, error, setError, run } = useSubmit();
  useEffect(() => {
    if (opened) {
      setName('');
      setSlug('');
      setSlugEdited(false);
      setError(null);
    }
  }, [opened, setError]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError(M.tenantNameRequired);
    if (!slug.trim()) return setError(M.slugRequired);
    if (!SLUG_PATTERN.test(slug)) return setError(M.slugPattern);
    void run(() => onCreate({ name: name.trim(), slug }));
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Create Tenant" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <TextInput
            label="Name"
            required
            data-autofocus
            value={name}
            onChange={(e) => {
              const value = e.currentTarget.value;
              setName(value);
              if (!slugEdited) setSlug(autoSlug(value));
            }}
          />
          <TextInput
            label="Slug"
            required
            description="Lowercase letters, digits and hyphens; it cannot be changed later."
            value={slug}
            onChange={(e) => {
              setSlug(e.currentTarget.value);
              setSlugEdited(true);
            }}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create Tenant
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Edit Tenant: only the name changes; the slug is shown read-only. */
export function EditTenantModal({ tenant, onClose, onSave }: { tenant: Tenant | null; onClose: () => void; onSave: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const { busy, error, setError, run } = useSubmit();
  useEffect(() => {
    if (tenant) {
      setName(tenant.name);
      setError(null);
    }
  }, [tenant, setError]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError(M.tenantNameRequired);
    void run(() => onSave(name.trim()));
  };
  return (
    <Modal opened={tenant !== null} onClose={onClose} title="Edit Tenant" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <TextInput label="Name" required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <TextInput label="Slug" value={tenant?.slug ?? ''} readOnly description="A tenant's slug cannot be changed." />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Permanent delete: the word DELETE must be typed exactly. */
export function DeleteTenantModal({ tenant, onClose, onDelete }: { tenant: Tenant | null; onClose: () => void; onDelete: () => Promise<void> }) {
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useSubmit();
  useEffect(() => {
    if (tenant) {
      setTyped('');
      setError(null);
    }
  }, [tenant, setError]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed !== DELETE_CONFIRMATION_WORD) return setError(M.typeDelete);
    void run(onDelete);
  };
  return (
    <Modal opened={tenant !== null} onClose={onClose} title="Delete Tenant Permanently" centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <Text>
            This permanently deletes {tenant?.name}: its services, categories, aspects, availabilities, snapshots, templates, audit
            logs, and every user whose primary tenant it is. {M.cannotBeUndone}.
          </Text>
          <TextInput label={`Type ${DELETE_CONFIRMATION_WORD} to confirm`} data-autofocus value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color="red.9" loading={busy}>
              Delete Permanently
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export { useSubmit };
