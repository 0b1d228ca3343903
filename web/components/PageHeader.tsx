import { Avatar, Box, Button, Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useSession } from '../session/SessionProvider';
import { TenantSwitcher } from './TenantSwitcher';

interface Props {
  title: string;
  /** An image URL (data URL) shown before the title. */
  icon?: string | null;
  /** Plain text (a service's description); line breaks are kept. */
  description?: string | null;
  /** Controls placed before the user block (for example a back button). */
  leading?: ReactNode;
}

/** The page header of every screen: title, optional icon and description, user name, tenant switcher, Log Out. */
export function PageHeader({ title, icon, description, leading }: Props) {
  const { user, logout } = useSession();
  return (
    <Box component="header" className="page-header" px="lg" py="md">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
        <Group align="flex-start" gap="md" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 320px' }}>
          {leading}
          {icon ? <Avatar src={icon} alt="" radius="md" size={48} /> : null}
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Title order={1} size="h2" className="page-title">
              {title}
            </Title>
            {description ? <Text className="page-description">{description}</Text> : null}
          </Stack>
        </Group>
        {user ? (
          <Group gap="md" wrap="nowrap">
            <Text size="sm" c="dimmed" data-testid="user-name">
              {user.name}
            </Text>
            <TenantSwitcher />
            <Button variant="default" size="xs" onClick={() => void logout()}>
              Log Out
            </Button>
          </Group>
        ) : null}
      </Group>
    </Box>
  );
}
