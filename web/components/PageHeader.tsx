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
    <Box component="header" className="page-header" px={{ base: 'sm', sm: 'lg' }} py="md">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
        {/* Back button and icon keep their size; the title takes the rest of the line and wraps, or
            moves below them on a narrow screen, so no control is ever clipped by a long name. */}
        <Group align="flex-start" gap="md" wrap="wrap" className="page-header-main">
          {leading ? <Box className="page-header-fixed">{leading}</Box> : null}
          {icon ? <Avatar src={icon} alt="" radius="md" size={48} className="page-header-fixed" /> : null}
          <Stack gap={4} className="page-header-titles">
            <Title order={1} size="h2" className="page-title">
              {title}
            </Title>
            {description ? <Text className="page-description">{description}</Text> : null}
          </Stack>
        </Group>
        {user ? (
          <Group gap="xs" wrap="wrap" className="page-header-user">
            <Text size="sm" c="dimmed" data-testid="user-name" className="page-header-name">
              {user.name}
            </Text>
            <TenantSwitcher />
            <Button variant="default" size="xs" onClick={() => void logout()} className="page-header-fixed">
              Log Out
            </Button>
          </Group>
        ) : null}
      </Group>
    </Box>
  );
}
