import { Alert, Button, Group, Modal, NativeSelect, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { M } from '../../../../common/messages';
import { MIN_PASSWORD_LENGTH } from '../../../../common/limits';
import { EMAIL_PATTERN } from '../../../../common/schemas/fields';
import { ROLES, type Role } from '../../../../common/roles';
import { useSubmit } from './TenantModals';
import { TenantSelect } from './TenantSelect';

export interface NewUserInput {
  email: string;
  name: string;
  role: Role;
  tenantId: string;
  password?: string;
}

interface Props {
  opened: boolean;
  onClose: () => void;
  onCreate: (input: NewUserInput) => Promise<void>;
  /**
   * Asks for the tenant the user is created in, among the active ones, searched on the server
   * (Create User of the super admin panel).
   */
  withTenant?: boolean;
  title: string;
}

export const roleLabel = (role: Role) => role.charAt(0).toUpperCase() + role.slice(1);

/**
 * Create User (super admin, with a tenant) and Add User (tenant admin). The password is asked
 * only when 'Set a password' is on; without one the user signs in with Microsoft.
 */
export function CreateUserModal({ opened, onClose, onCreate, withTenant = false, title }: Props) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role | ''>('');
  const [tenantId, setTenantId] = useState('');
  const [withPassword, setWithPassword] = useState(false);
  const [password, setPassword] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const required = withTenant ? M.emailNameRoleTenantRequired : M.emailNameRoleRequired;

  useEffect(() => {
    if (opened) {
      setEmail('');
      setName('');
      setRole('');
      setTenantId('');
      setWithPassword(false);
      setPassword('');
      setError(null);
    }
  }, [opened, setError]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim() || !name.trim() || !role || (withTenant && !tenantId)) return setError(required);
    if (!EMAIL_PATTERN.test(email.trim())) return setError(M.invalidEmail);
    if (withPassword && password.length < MIN_PASSWORD_LENGTH) return setError(M.passwordMin);
    void run(() =>
      onCreate({ email: email.trim(), name: name.trim(), role, tenantId, ...(withPassword ? { password } : {}) }),
    );
  };

  return (
    <Modal opened={opened} onClose={onClose} title={title} centered withinPortal={false} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {error ? (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          ) : null}
          <TextInput label="Email" type="email" required data-autofocus value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <NativeSelect
            label="Role"
            required
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role | '')}
            data={[{ value: '', label: 'Select a role' }, ...ROLES.map((r) => ({ value: r, label: roleLabel(r) }))]}
          />
          {withTenant ? (
            <TenantSelect label="Tenant" placeholder="Select a tenant" required includeArchived={false} value={tenantId || null} onChange={(id) => setTenantId(id ?? '')} />
          ) : null}
          <Switch
            label="Set a password"
            description="Without a password the user signs in with Microsoft."
            checked={withPassword}
            onChange={(e) => setWithPassword(e.currentTarget.checked)}
          />
          {withPassword ? (
            <PasswordInput label="Password" required autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create User
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
