import { Anchor, Badge, Card, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useServices } from '../../api/services';
import { AppLayout } from '../../components/AppLayout';
import { PageHeader } from '../../components/PageHeader';
import { TenantFooter } from '../../components/TenantFooter';
import { useSession } from '../../session/SessionProvider';

export function DashboardPage() {
  const { tenant } = useSession();
  const [search, setSearch] = useState('');
  const services = useServices(false);
  const visible = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (services.data ?? []).filter((s) => !q || s.name.toLowerCase().includes(q) || s.slug.includes(q));
  }, [services.data, search]);

  return (
    <AppLayout header={<PageHeader title={tenant?.name ?? 'Services'} />} footer={<TenantFooter />}>
      <Stack gap="lg">
        <TextInput
          aria-label="Search services"
          placeholder="Search services..."
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          maw={420}
        />
        {services.isLoading ? (
          <Group gap="xs">
            <Loader size="sm" />
            <Text>Loading services...</Text>
          </Group>
        ) : services.isError ? (
          <Text c="red">{services.error.message}</Text>
        ) : visible.length === 0 ? (
          <Text c="dimmed">{search ? 'No matching services found.' : 'No services yet.'}</Text>
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {visible.map((s) => (
              <Card key={s.id} withBorder radius="md" padding="lg" component={Link} to={`/catalog/${s.id}`}>
                <Group justify="space-between">
                  <Title order={2} size="h4">
                    {s.name}
                  </Title>
                  {s.archived ? <Badge color="gray">ARCHIVED</Badge> : null}
                </Group>
                <Text size="sm" c="dimmed">
                  {s.slug}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
        )}
      </Stack>
    </AppLayout>
  );
}
