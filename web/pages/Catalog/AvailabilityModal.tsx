import { Alert, Anchor, Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { CatalogModal, ModalCancelButton, useModalDirty } from '../../components/CatalogModal';
import { useState } from 'react';
import { Link } from 'react-router';
import { M } from '../../../common/messages';
import { setAvailabilitySchema } from '../../../common/schemas/catalog';
import { useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';
import { messageOf } from '../../api/client';
import { conflictingValue, useSetAvailability, type Aspect, type QuickTemplate } from '../../api/catalog';
import { ChangedNotice } from '../../components/ChangedNotice';
import { ErrorBox } from './ErrorBox';
import { HistoryList } from '../../components/grid/CellHistory';

/** The specification's sentence, whose "Service Settings" becomes a link for those who may open them. */
const NO_TEMPLATES = 'No quick templates defined. Add them in Service Settings.';
const SETTINGS_LINK = 'Service Settings';
const [NO_TEMPLATES_BEFORE, NO_TEMPLATES_AFTER] = NO_TEMPLATES.split(SETTINGS_LINK) as [string, string];

// The text as the save request checks it.
const availabilityValueSchema = setAvailabilitySchema.pick({ value: true });

export interface AvailabilityTarget {
  aspect: Aspect;
  bucket: string;
}

interface Props {
  serviceId: string;
  target: AvailabilityTarget | null;
  templates: QuickTemplate[];
  /** Where the service's quick templates are managed; null for those who may not open the settings. */
  templatesHref: string | null;
  /** The quarter's stored text as the catalog reads it now (undefined when the aspect is gone). */
  latest: string | undefined;
  onClose: () => void;
}

function AvailabilityForm({ target, templates, templatesHref, latest, onClose }: Props & { target: AvailabilityTarget }) {
  const original = target.aspect.availabilities[target.bucket] ?? '';
  const form = useSchemaForm(availabilityValueSchema, { value: original });
  const { value } = form.values;
  // The stored value this edit is based on; a conflict moves it to what someone else saved.
  const [basis, setBasis] = useState(original);
  useModalDirty(value !== basis);
  const [conflict, setConflict] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = useSetAvailability();
  const [showHistory, setShowHistory] = useState(false);

  const send = async (expected: string) => {
    setError(null);
    try {
      await save.mutateAsync({ aspectId: target.aspect.id, timeBucket: target.bucket, value, expectedValue: expected || null });
      form.resetDirty();
      notifySuccess(DONE.availabilitySaved);
      onClose();
    } catch (err) {
      const current = conflictingValue(err);
      if (current !== undefined) {
        setBasis(current);
        setConflict(current);
        return;
      }
      setError(messageOf(err, M.failedUpdateAvailability));
    }
  };

  // A colleague saved this quarter while the editor was open: what is typed stays, and the person chooses.
  const changed = latest !== undefined && conflict === null && latest !== basis && latest !== value;

  // Typed exactly what is stored now: nothing of anyone's is overwritten.
  const submit = () => void send(latest !== undefined && latest === value ? latest : basis);

  const sortedTemplates = [...templates].sort((a, b) => a.position - b.position);

  return (
    <form onSubmit={form.onSubmit(submit, () => setError(null))} noValidate>
      <Stack gap="md">
        <Text size="sm">
          <strong>{target.aspect.title}</strong> in <strong data-testid="availability-bucket">{target.bucket}</strong>
        </Text>
        <ErrorBox error={error} />
        {conflict !== null ? (
          <Alert color="orange" role="alert">
            <Stack gap="xs">
              <Text size="sm">
                <strong>Changed by someone else.</strong> While you were editing, someone else saved: <strong>{conflict || '-'}</strong>
              </Text>
              <Group gap="sm">
                <Button size="xs" onClick={() => void send(conflict)} loading={save.isPending}>
                  Overwrite with mine
                </Button>
                <Button size="xs" variant="default" onClick={onClose}>
                  Keep theirs
                </Button>
              </Group>
            </Stack>
          </Alert>
        ) : null}
        {changed ? (
          <ChangedNotice
            onUseTheirs={() => {
              form.setFieldValue('value', latest);
              setBasis(latest);
            }}
            onKeepMine={() => setBasis(latest)}
          >
            <Text size="sm">
              Their version: <strong data-testid="their-version">{latest || '-'}</strong>
            </Text>
          </ChangedNotice>
        ) : null}
        <Textarea label="Availability" {...form.getInputProps('value')} autosize minRows={3} data-autofocus />
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            Quick templates
          </Text>
          {sortedTemplates.length ? (
            <Group gap="xs">
              {sortedTemplates.map((t) => (
                <Button key={t.id} size="xs" variant="default" onClick={() => form.setFieldValue('value', t.template_text)}>
                  {t.template_text}
                </Button>
              ))}
            </Group>
          ) : (
            <Text size="sm" c="dimmed">
              {templatesHref ? (
                <>
                  {NO_TEMPLATES_BEFORE}
                  <Anchor component={Link} to={templatesHref} inherit underline="always">
                    {SETTINGS_LINK}
                  </Anchor>
                  {NO_TEMPLATES_AFTER}
                </>
              ) : (
                NO_TEMPLATES
              )}
            </Text>
          )}
        </Stack>
        {showHistory ? <HistoryList target={{ aspectId: target.aspect.id, title: target.aspect.title, bucket: target.bucket }} /> : null}
        <Group justify="space-between">
          <Button variant="subtle" size="xs" onClick={() => setShowHistory((v) => !v)} aria-expanded={showHistory}>
            {showHistory ? 'Hide history' : 'History'}
          </Button>
          <Group gap="sm">
            <ModalCancelButton />
            <Button type="submit" loading={save.isPending} disabled={conflict !== null}>
              Save
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

/** Edit Availability: the quarter, a textarea and the service's quick templates. */
export function AvailabilityModal(props: Props) {
  const { target, onClose } = props;
  return (
    <CatalogModal opened={target !== null} onClose={onClose} title="Edit Availability">
      {target ? <AvailabilityForm key={`${target.aspect.id}-${target.bucket}`} {...props} target={target} /> : null}
    </CatalogModal>
  );
}
