import { Button, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { memo, useEffect, useRef } from 'react';
import { embedOriginsFormSchema, originLines, PUBLISHING_MESSAGES as P } from '../../../common/schemas/publishing';
import { messageOf } from '../../api/client';
import { useEmbedOrigins, useSaveEmbedOrigins } from '../../api/publishing';
import { notifySuccess } from '../../lib/notify';
import { useSchemaForm } from '../../lib/schemaForm';

/**
 * The origins (intranets, websites) allowed to show the tenant's public pages in a frame; none by
 * default (docs/decisions/0120-public-pages.md).
 */
export const EmbedOriginsForm = memo(function EmbedOriginsForm() {
  const origins = useEmbedOrigins();
  const save = useSaveEmbedOrigins();
  const form = useSchemaForm(embedOriginsFormSchema, { origins: '' });
  const loaded = origins.data?.join('\n');
  // The saved list fills the field once each time it changes, never over what is being typed.
  const applied = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (loaded === undefined || applied.current === loaded) return;
    applied.current = loaded;
    form.setValues({ origins: loaded });
    form.resetDirty({ origins: loaded });
  }, [loaded, form]);

  const submit = ({ origins: text }: { origins: string }) =>
    save.mutate(originLines(text), {
      onSuccess: () => notifySuccess(P.originsSaved),
      onError: (err) => form.setFieldError('origins', messageOf(err, P.failedSaveOrigins)),
    });

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="embed-title">
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="sm">
          <Title order={2} size="h3" id="embed-title">
            Public pages
          </Title>
          <Text size="sm">
            Published services are readable at /p/your-tenant. By default no other site may show them in a frame. List the sites allowed to embed them, one
            origin per line (for example https://intranet.example.org).
          </Text>
          <Textarea label="Origins allowed to embed public pages" autosize minRows={3} disabled={origins.isLoading} {...form.getInputProps('origins')} />
          <Group>
            <Button type="submit" loading={save.isPending} disabled={origins.isLoading}>
              Save origins
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
});
