import { Alert, Button, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../common/limits';
import { M } from '../../../common/messages';
import type { Role } from '../../../common/roles';
import { assignUserSchema, createServiceRoleSchema, createServiceUserSchema } from '../../../common/schemas/settings';
import { messageOf } from '../../api/client';
import { useAssignUser, useChangeAssignment, useCreateServiceUser, useRemoveAssignment, type Assignment } from '../../api/settings';
import { useTenantUserOptions } from '../../api/users';
import { CreateUserModal } from '../../components/CreateUserModal';
import { DONE, notifySuccess } from '../../lib/notify';
import { ROLE_OPTIONS } from '../../lib/roles';
import { useSchemaForm } from '../../lib/schemaForm';
import { useSubmit } from '../../lib/useSubmit';

const ASSIGNMENT_ADDED = 'User assignment added.';

interface Props {
  serviceId: string;
  assignments: Assignment[];
  /**
   * Whether the caller may see and create the tenant's users (a tenant admin). Someone who manages
   * this service through an assignment names the user by email instead, and creates nobody.
   */
  canManageUsers: boolean;
}

/** User Assignments (admins): who holds which role on this service, separate from their own role. */
export function UserAssignmentsTab({ serviceId, assignments, canManageUsers }: Props) {
  const assign = useAssignUser(serviceId);
  const change = useChangeAssignment(serviceId);
  const remove = useRemoveAssignment(serviceId);
  const createUser = useCreateServiceUser(serviceId);
  // Checked as the server checks the call it makes: a user picked from the tenant's users, or one
  // named by email by someone who manages this service through an assignment.
  const form = useSchemaForm(canManageUsers ? assignUserSchema : createServiceRoleSchema, { serviceId, userId: '', userEmail: '', role: '' });
  const { busy, error, run } = useSubmit(M.failedAddAssignment);
  const [creating, setCreating] = useState(false);

  const [userSearch, setUserSearch] = useState('');
  const [picked, setPicked] = useState<{ value: string; label: string } | null>(null);
  // The server searches the tenant's users as the admin types (once typing pauses) and answers
  // at most a page of options; the text of the chosen option is not a search.
  const typed = picked && userSearch === picked.label ? '' : userSearch.trim();
  const [search] = useDebouncedValue(typed, SEARCH_DEBOUNCE_MS);
  const found = useTenantUserOptions(search, canManageUsers);

  const assigned = useMemo(() => new Set(assignments.map((a) => a.user_id)), [assignments]);
  const candidates = useMemo(() => {
    const options = (found.data?.users ?? []).filter((u) => !assigned.has(u.id)).map((u) => ({ value: u.id, label: `${u.name} (${u.email})` }));
    // The chosen user stays an option whatever the last search found.
    return picked && !options.some((o) => o.value === picked.value) ? [picked, ...options] : options;
  }, [found.data, assigned, picked]);

  const add = form.onSubmit(async ({ userId, userEmail, role }) => {
    const body = canManageUsers ? { userId, role: role as Role } : { userEmail: userEmail.trim(), role: role as Role };
    if (await run(() => assign.mutateAsync(body))) {
      form.reset();
      setPicked(null);
      setUserSearch('');
      notifySuccess(ASSIGNMENT_ADDED);
    }
  });

  const onChangeRole = (a: Assignment, next: string | null) => {
    if (!next || next === a.role) return;
    change.mutate(
      { userId: a.user_id, role: next as Role },
      { onSuccess: () => notifySuccess(DONE.assignmentRoleChanged), onError: (err) => window.alert(messageOf(err, M.failedUpdateRole)) },
    );
  };

  const onRemove = (a: Assignment) => {
    if (!window.confirm(`Remove ${a.user_name} (${a.user_email}) from this service?`)) return;
    remove.mutate(a.user_id, {
      onSuccess: () => notifySuccess(DONE.assignmentRemoved),
      onError: (err) => window.alert(messageOf(err, M.failedDeleteAssignment)),
    });
  };

  return (
    <Stack gap="lg">
      {assignments.length === 0 ? (
        <Text c="dimmed">No user assignments yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="User assignments">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {assignments.map((a) => (
                <Table.Tr key={a.id}>
                  <Table.Td>{a.user_email}</Table.Td>
                  <Table.Td>{a.user_name}</Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={`Role of ${a.user_email}`}
                      data={ROLE_OPTIONS}
                      value={a.role}
                      onChange={(v) => onChangeRole(a, v)}
                      allowDeselect={false}
                      w={140}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Button variant="filled" color="red.9" size="xs" onClick={() => onRemove(a)} aria-label={`Remove ${a.user_email}`}>
                      Remove
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      <form onSubmit={add} noValidate aria-labelledby="add-assignment-title">
        <Stack gap="sm" maw={720}>
          <Title order={2} size="h4" id="add-assignment-title">
            Add User Assignment
          </Title>
          <Group align="flex-end" gap="sm" wrap="wrap">
            {canManageUsers ? (
              <Select
                label="User"
                placeholder="Select a user"
                data={candidates}
                value={form.values.userId || null}
                onChange={(value, option) => {
                  form.setFieldValue('userId', value ?? '');
                  setPicked(value && option ? { value, label: option.label } : null);
                }}
                onBlur={() => form.validateField('userId')}
                error={form.errors.userId}
                searchable
                searchValue={userSearch}
                onSearchChange={setUserSearch}
                // The options are the server's answer to the search: shown as they come.
                filter={({ options }) => options}
                nothingFoundMessage={found.isFetching ? 'Searching...' : 'No users to assign'}
                style={{ flex: '1 1 260px' }}
              />
            ) : (
              <TextInput
                label="User email"
                description="A user of this tenant"
                type="email"
                placeholder="name@example.com"
                {...form.getInputProps('userEmail')}
                style={{ flex: '1 1 260px' }}
              />
            )}
            <Select label="Role" placeholder="Select a role" data={ROLE_OPTIONS} {...form.getInputProps('role')} value={form.values.role || null} w={160} />
            <Button type="submit" loading={busy}>
              Add Assignment
            </Button>
            {canManageUsers ? (
              <Button variant="default" onClick={() => setCreating(true)}>
                Create New User
              </Button>
            ) : null}
          </Group>
          {error ? (
            <Alert color="red" role="alert" variant="light" c="red.9">
              {error}
            </Alert>
          ) : null}
        </Stack>
      </form>
      {canManageUsers ? (
        <CreateUserModal
          title="Create New User"
          opened={creating}
          schema={createServiceUserSchema}
          initialRole="reader"
          withAssign
          onClose={() => setCreating(false)}
          onCreate={({ email, name, role, password, assign: assignToService }) =>
            createUser.mutateAsync({ email, name, role, password, assign: assignToService })
          }
        />
      ) : null}
    </Stack>
  );
}
