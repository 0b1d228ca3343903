import { Alert, Button, FileInput, Group, Progress, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { IMPORT_EXTENSION } from '../../../common/limits';
import { messageOf } from '../../api/client';
import { serviceKeys } from '../../api/services';
import { uploadCatalog } from '../../api/settings';
import { useSession } from '../../session/SessionProvider';
import { CatalogModal } from '../../components/CatalogModal';

/** 'Import' on the dashboard (admins): choose a .catalog file, upload it with progress, open the new service. */
export function ImportServiceButton() {
  const { user } = useSession();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);

  const canImport = Boolean(user?.permissions?.canCreateServices);
  if (!canImport) return null;

  const close = () => {
    if (progress !== null) return;
    setOpened(false);
    setFile(null);
    setError(null);
  };

  const choose = (next: File | null) => {
    setFile(next);
    setError(next && !next.name.toLowerCase().endsWith(IMPORT_EXTENSION) ? M.invalidCatalogFile : null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !file.name.toLowerCase().endsWith(IMPORT_EXTENSION)) return setError(M.invalidCatalogFile);
    setError(null);
    setProgress(0);
    try {
      const service = await uploadCatalog(file, setProgress);
      await client.invalidateQueries({ queryKey: serviceKeys.all });
      setProgress(null);
      setOpened(false);
      navigate(`/catalog/${service.id}`);
    } catch (err) {
      setProgress(null);
      setError(messageOf(err, M.failedImportService));
    }
  };

  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Import
      </Button>
      <CatalogModal opened={opened} onClose={close} title="Import Service">
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack gap="md">
            <FileInput
              label="Service file (.catalog)"
              placeholder="Choose a .catalog file"
              accept={IMPORT_EXTENSION}
              value={file}
              onChange={choose}
              clearable={false}
              data-autofocus
            />
            {progress !== null ? (
              <Stack gap={4}>
                <Progress value={progress} aria-label="Upload progress" />
                <Text size="xs" c="dimmed" role="status">
                  {progress < 100 ? `Uploading... ${progress}%` : 'Importing...'}
                </Text>
              </Stack>
            ) : null}
            {error ? (
              <Alert color="red" role="alert" variant="light" c="red.9">
                {error}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={progress !== null}>
                Cancel
              </Button>
              <Button type="submit" loading={progress !== null}>
                Import
              </Button>
            </Group>
          </Stack>
        </form>
      </CatalogModal>
    </>
  );
}
