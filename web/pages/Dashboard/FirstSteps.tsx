import { Anchor, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useSession } from '../../session/SessionProvider';

/**
 * An empty dashboard: the specification's 'No services yet.' and what to do next, the action one
 * click away for those who may take it (docs/decisions/0157).
 */
export function FirstSteps({ onCreate }: { onCreate: () => void }) {
  const { user } = useSession();
  const rights = user?.permissions;
  return (
    <Paper withBorder p="lg" data-testid="first-steps">
      <Stack gap="sm" align="flex-start">
        <Text fw={600}>No services yet.</Text>
        {rights?.canCreateServices ? (
          <>
            <Text size="sm">
              A service is one roadmap: its categories, its aspects and what each offers quarter by quarter. Create one, or bring one from a .catalog file with
              Import above.
            </Text>
            <Group gap="sm">
              <Button onClick={onCreate}>Create your first service</Button>
              {rights.canOpenTenantSettings ? (
                <Button component={Link} to="/tenant-settings?invite" variant="default">
                  Invite people
                </Button>
              ) : null}
            </Group>
          </>
        ) : (
          <Text size="sm">
            The services of this tenant appear here once an editor creates them.
            {rights?.canOpenTenantSettings ? (
              <>
                {' '}
                <Anchor component={Link} to="/tenant-settings?invite">
                  Invite people
                </Anchor>{' '}
                to work on them.
              </>
            ) : null}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
