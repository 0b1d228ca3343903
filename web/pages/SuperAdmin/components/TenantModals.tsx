import { TextInput } from '@mantine/core';
import { useState } from 'react';
import { M } from '../../../../common/messages';
import { autoSlug } from '../../../../common/slug';
import { createTenantSchema, updateTenantSchema } from '../../../../common/schemas/tenants';
import type { Tenant } from '../../../api/tenants';
import { CatalogModal } from '../../../components/CatalogModal';
import { ModalForm } from '../../../components/ModalForm';
import { notifySuccess } from '../../../lib/notify';
import { useFreshOnOpen, useSchemaForm } from '../../../lib/schemaForm';
import { useSubmit } from '../../../lib/useSubmit';

const DONE = { tenantCreated: 'Tenant created.', tenantSaved: 'Tenant saved.' } as const;

/** Create Tenant: the slug follows the name until it is edited by hand. */
export function CreateTenantModal({
  opened,
  onClose,
  onCreate,
}: {
  opened: boolean;
  onClose: () => void;
  onCreate: (input: { name: string; slug: string }) => Promise<unknown>;
}) {
  const form = useSchemaForm(createTenantSchema, { name: '', slug: '' });
  const [slugEdited, setSlugEdited] = useState(false);
  const { busy, error, setError, run } = useSubmit(M.failedCreateTenant);
  useFreshOnOpen(opened, form, setError, () => setSlugEdited(false));

  const submit = form.onSubmit(async ({ name, slug }) => {
    if (await run(() => onCreate({ name: name.trim(), slug }))) {
      form.reset();
      notifySuccess(DONE.tenantCreated);
      onClose();
    }
  });
  const name = form.getInputProps('name');
  const slug = form.getInputProps('slug');
  return (
    <CatalogModal opened={opened} onClose={onClose} title="Create Tenant" dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Create Tenant">
        <TextInput
          label="Name"
          withAsterisk
          data-autofocus
          {...name}
          onChange={(e) => {
            const value = e.currentTarget.value;
            form.setValues(slugEdited ? { name: value } : { name: value, slug: autoSlug(value) });
          }}
        />
        <TextInput
          label="Slug"
          withAsterisk
          description="Lowercase letters, digits and hyphens; it cannot be changed later."
          {...slug}
          onChange={(e) => {
            form.setFieldValue('slug', e.currentTarget.value);
            setSlugEdited(true);
          }}
        />
      </ModalForm>
    </CatalogModal>
  );
}

/** Edit Tenant: only the name changes; the slug is shown read-only. */
export function EditTenantModal({ tenant, onClose, onSave }: { tenant: Tenant | null; onClose: () => void; onSave: (name: string) => Promise<unknown> }) {
  const form = useSchemaForm(updateTenantSchema, { name: '' });
  const { busy, error, setError, run } = useSubmit(M.failedUpdateTenant);
  // The tenant's name is where editing starts: only a change of it is unsaved work.
  useFreshOnOpen(tenant, form, setError, () => tenant && form.setInitialValues({ name: tenant.name }));

  const submit = form.onSubmit(async ({ name }) => {
    if (await run(() => onSave(name.trim()))) {
      notifySuccess(DONE.tenantSaved);
      onClose();
    }
  });
  return (
    <CatalogModal opened={tenant !== null} onClose={onClose} title="Edit Tenant" dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Save">
        <TextInput label="Name" withAsterisk data-autofocus {...form.getInputProps('name')} />
        <TextInput label="Slug" value={tenant?.slug ?? ''} readOnly description="A tenant's slug cannot be changed." />
      </ModalForm>
    </CatalogModal>
  );
}
