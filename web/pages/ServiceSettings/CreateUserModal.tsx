import { Alert, Button, Checkbox, Group, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { M } from '../../../common/messages';
import { MIN_PASSWORD_LENGTH } from '../../../common/limits';
import type { Role } from '../../../common/roles';
import { messageOf } from '../../api/client';
import { useCreateServiceUser } from '../../api/settings';
import { CatalogModal } from '../../components/CatalogModal';
import { ROLE_OPTIONS } from './roleOptions';

/** 'Create New User': a user of the current tenant, optionally assigned to this service. */
export function CreateUserModal({ serviceId, opened, onClose }: { serviceId: string; opened: boolean; onClose: () => void }) {
  const create = useCreateServiceUser(serviceId);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<string | null>('reader');
  const [assign, setAssign] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!opened) return;
    setEmail('');
    setName('');
    setPassword('');
    setRole('reader');
    setAssign(true);
    setError(null);
  }, [opened]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim() || !name.trim()) return setError(M.emailAndNameRequired);
    if (password && password.length < MIN_PASSWORD_LENGTH) return setError(M.passwordMin);
    if (!role) return setError(M.selectRole);
    setError(null);
    create.mutate(
      { email: email.trim(), name: name.trim(), password, role: role as Role, assign },
      { onSuccess: onClose, onError: (err) => setError(messageOf(err, M.failedCreateUser)) },
    );
  };

  return (
    <CatalogModal opened={opened} onClose={onClose} title="Create New User">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput label="Email" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} data-autofocus />
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <PasswordInput
            label="Password (optional)"
            description="Leave empty for a user who signs in with Microsoft"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Select label="Role" data={ROLE_OPTIONS} value={role} onChange={setRole} allowDeselect={false} />
          <Checkbox label="Assign to this service" checked={assign} onChange={(e) => setAssign(e.currentTarget.checked)} />
          {error ? (
            <Alert color="red" role="alert" variant="light" c="red.9">
              {error}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create User
            </Button>
          </Group>
        </Stack>
      </form>
    </CatalogModal>
  );
}
