import { Checkbox, NativeSelect, PasswordInput, Switch, TextInput } from '@mantine/core';
import { useMemo, type ReactNode } from 'react';
import { z } from 'zod';
import { M } from '../../common/messages';
import type { Role } from '../../common/roles';
import { passwordField } from '../../common/schemas/fields';
import { notifySuccess } from '../lib/notify';
import { ROLE_OPTIONS } from '../lib/roles';
import { useFreshOnOpen, useSchemaForm } from '../lib/schemaForm';
import { useSubmit } from '../lib/useSubmit';
import { CatalogModal } from './CatalogModal';
import { ModalForm } from './ModalForm';

export interface NewUser {
  email: string;
  name: string;
  role: Role;
  /** The primary tenant, when the modal asks for it (empty otherwise). */
  tenantId: string;
  password?: string;
  /** 'Assign to this service', when the modal offers it. */
  assign: boolean;
}

interface Values {
  email: string;
  name: string;
  role: Role | '';
  tenantId: string;
  withPassword: boolean;
  password: string;
  assign: boolean;
  [key: string]: unknown;
}

/** What the tenant field is given: the form's value for it, its changes, its blur and its error. */
export interface TenantField {
  value: string | null;
  onChange: (id: string | null) => void;
  onBlur: () => void;
  error: ReactNode;
}

interface Props {
  title: string;
  opened: boolean;
  onClose: () => void;
  /** The schema the server checks this very request with: its rules and messages are the form's. */
  schema: z.ZodType;
  /** Creates the user; a failure stays in the modal, success closes it with a notification. */
  onCreate: (user: NewUser) => Promise<unknown>;
  initialRole?: Role | '';
  /** The primary tenant's field (the super admin's Create User); none means the current tenant. */
  tenantField?: (field: TenantField) => ReactNode;
  /** Offers 'Assign to this service', on by default (Create New User of service settings). */
  withAssign?: boolean;
}

/** With 'Set a password' on, the password is required and must be one the server accepts. */
const passwordOption = z.discriminatedUnion('withPassword', [
  z.object({ withPassword: z.literal(false) }),
  z.object({ withPassword: z.literal(true), password: passwordField }),
]);

const USER_CREATED = 'User created.';

/**
 * Create User (super admin, with a tenant), Add User (tenant admin) and Create New User (service
 * settings, with 'Assign to this service'): one form checked by the schema of the request it
 * sends. The password is asked only when 'Set a password' is on; without one the user signs in
 * with Microsoft.
 */
export function CreateUserModal({ title, opened, onClose, schema, onCreate, initialRole = '', tenantField, withAssign = false }: Props) {
  const formSchema = useMemo(() => z.intersection(schema, passwordOption), [schema]);
  const initial: Values = { email: '', name: '', role: initialRole, tenantId: '', withPassword: false, password: '', assign: true };
  const form = useSchemaForm<Values>(formSchema, initial);
  const { busy, error, setError, run } = useSubmit(M.failedCreateUser);
  useFreshOnOpen(opened, form, setError);

  const submit = form.onSubmit(async (values) => {
    const user: NewUser = {
      email: values.email.trim(),
      name: values.name.trim(),
      role: values.role as Role,
      tenantId: values.tenantId,
      ...(values.withPassword ? { password: values.password } : {}),
      assign: values.assign,
    };
    if (await run(() => onCreate(user))) {
      form.reset();
      notifySuccess(USER_CREATED);
      onClose();
    }
  });

  return (
    <CatalogModal opened={opened} onClose={onClose} title={title} dirty={form.isDirty()}>
      <ModalForm onSubmit={submit} error={error} busy={busy} action="Create User">
        <TextInput label="Email" type="email" withAsterisk data-autofocus {...form.getInputProps('email')} />
        <TextInput label="Name" withAsterisk {...form.getInputProps('name')} />
        <NativeSelect label="Role" withAsterisk data={[{ value: '', label: 'Select a role' }, ...ROLE_OPTIONS]} {...form.getInputProps('role')} />
        {tenantField?.({
          value: form.values.tenantId || null,
          onChange: (id) => form.setFieldValue('tenantId', id ?? ''),
          onBlur: () => form.validateField('tenantId'),
          error: form.errors.tenantId,
        })}
        <Switch
          label="Set a password"
          description="Without a password the user signs in with Microsoft."
          checked={form.values.withPassword}
          onChange={(e) => form.setValues({ withPassword: e.currentTarget.checked, password: '' })}
        />
        {form.values.withPassword ? <PasswordInput label="Password" withAsterisk autoComplete="new-password" {...form.getInputProps('password')} /> : null}
        {withAssign ? <Checkbox label="Assign to this service" {...form.getInputProps('assign', { type: 'checkbox' })} /> : null}
      </ModalForm>
    </CatalogModal>
  );
}
