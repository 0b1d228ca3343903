import { Button, Group, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { M } from '../../../common/messages';
import { htmlToText } from '../../../common/richText';
import { MAX_TIMELINE_QUARTERS } from '../../../common/limits';
import { addQuarters, compareQuarters, quarterOf, quarterRange } from '../../../common/quarters';
import { TIMELINE_ORDER, TIMELINE_TOO_LONG } from '../../../common/schemas/services';
import { messageOf } from '../../api/client';
import type { Service } from '../../api/services';
import { useUpdateServiceDetails } from '../../api/settings';
import { IconUpload } from '../../components/IconUpload';

/** Quarters offered for the timeline: around the current timeline and today, far enough for 40 quarters. */
function quarterOptions(timeline: string[]): string[] {
  const now = quarterOf(new Date());
  const first = timeline[0] && compareQuarters(timeline[0], now) < 0 ? timeline[0] : now;
  const last = timeline.at(-1) && compareQuarters(timeline.at(-1)!, now) > 0 ? timeline.at(-1)! : now;
  return quarterRange(addQuarters(first, -8), addQuarters(last, MAX_TIMELINE_QUARTERS));
}

/** Service Details: name, read-only slug, description, owner, subscription model, icon and timeline. */
export function DetailsTab({ service, readOnly }: { service: Service; readOnly: boolean }) {
  const update = useUpdateServiceDetails(service.id);
  const [name, setName] = useState(service.name);
  // A service description is plain text; it is stored escaped, older rows as markup (docs/decisions/0113-plain-service-descriptions.md).
  const [description, setDescription] = useState(htmlToText(service.description));
  const [owner, setOwner] = useState(service.service_owner);
  const [model, setModel] = useState(service.subscription_model);
  const [icon, setIcon] = useState<string | null>(service.icon_url);
  const [first, setFirst] = useState<string | null>(service.timeline[0] ?? null);
  const [last, setLast] = useState<string | null>(service.timeline.at(-1) ?? null);
  const [nameError, setNameError] = useState<string | null>(null);
  const [timelineError, setTimelineError] = useState<string | null>(null);

  // The stored values the fields were filled from.
  const basis = useRef(service);
  useEffect(() => {
    const was = basis.current;
    basis.current = service;
    // Another service: every field starts from it.
    const fresh = was.id !== service.id;
    // A new version (a colleague's save, live) replaces only the fields the person has not touched:
    // what they are typing stays. A plain refetch changes nothing.
    const take = <T,>(set: (update: (current: T) => T) => void, before: T, after: T) => set((current) => (fresh || current === before ? after : current));
    take(setName, was.name, service.name);
    take(setDescription, htmlToText(was.description), htmlToText(service.description));
    take(setOwner, was.service_owner, service.service_owner);
    take(setModel, was.subscription_model, service.subscription_model);
    take(setIcon, was.icon_url, service.icon_url);
    take(setFirst, was.timeline[0] ?? null, service.timeline[0] ?? null);
    take(setLast, was.timeline.at(-1) ?? null, service.timeline.at(-1) ?? null);
  }, [service.id, service.version]);

  const options = useMemo(() => quarterOptions(service.timeline), [service.timeline]);

  const save = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    setNameError(trimmed ? null : M.serviceNameRequired);
    let rangeError: string | null = null;
    if (!first || !last || compareQuarters(first, last) > 0) rangeError = TIMELINE_ORDER;
    else if (compareQuarters(last, first) >= MAX_TIMELINE_QUARTERS) rangeError = TIMELINE_TOO_LONG;
    setTimelineError(rangeError);
    if (!trimmed || rangeError || !first || !last) return;
    update.mutate(
      { name: trimmed, description, service_owner: owner, subscription_model: model, icon_url: icon, timeline: { first, last } },
      {
        onSuccess: () => window.alert(M.serviceDetailsUpdated),
        onError: (err) => window.alert(messageOf(err, M.failedUpdateService)),
      },
    );
  };

  return (
    <form onSubmit={save} noValidate>
      <Stack gap="md" maw={720}>
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={nameError} disabled={readOnly} />
        <TextInput label="Slug" value={service.slug} readOnly description="Slug cannot be changed" />
        <Textarea label="Description" rows={3} value={description} onChange={(e) => setDescription(e.currentTarget.value)} disabled={readOnly} />
        <TextInput label="Service Owner" value={owner} onChange={(e) => setOwner(e.currentTarget.value)} disabled={readOnly} />
        <Textarea label="Subscription Model" rows={3} value={model} onChange={(e) => setModel(e.currentTarget.value)} disabled={readOnly} />
        <IconUpload value={icon} onChange={setIcon} disabled={readOnly} />
        <Group grow align="flex-start">
          <Select label="Timeline first quarter" data={options} value={first} onChange={setFirst} allowDeselect={false} disabled={readOnly} searchable />
          <Select label="Timeline last quarter" data={options} value={last} onChange={setLast} allowDeselect={false} disabled={readOnly} searchable />
        </Group>
        {timelineError ? (
          <Text c="red.9" size="sm" role="alert">
            {timelineError}
          </Text>
        ) : (
          <Text size="xs" c="dimmed">
            At most {MAX_TIMELINE_QUARTERS} quarters. Availability outside the timeline is kept and reappears when the timeline covers it again.
          </Text>
        )}
        {!readOnly ? (
          <Group>
            <Button type="submit" loading={update.isPending}>
              Save Changes
            </Button>
          </Group>
        ) : null}
      </Stack>
    </form>
  );
}
