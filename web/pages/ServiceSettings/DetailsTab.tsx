import { Button, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useEffect, useEffectEvent, useMemo, useRef, useState } from 'react';
import { M } from '../../../common/messages';
import { htmlToText } from '../../../common/richText';
import { updateServiceSchema } from '../../../common/schemas/services';
import { messageOf } from '../../api/client';
import type { Service } from '../../api/services';
import { useUpdateServiceDetails } from '../../api/settings';
import { ChangedNotice } from '../../components/ChangedNotice';
import { IconUpload } from '../../components/IconUpload';
import { quarterOptions, TimelineFields } from '../../components/TimelineFields';
import { useSchemaForm } from '../../lib/schemaForm';
import { useUnsavedChanges } from '../../lib/unsavedChanges';

type Details = {
  name: string;
  description: string;
  serviceOwner: string;
  subscriptionModel: string;
  iconUrl: string | null;
  timeline: { first: string | null; last: string | null };
};

/** The fields as a service fills them (the update request's shape, in its camelCase spelling). */
function detailsOf(service: Service): Details {
  return {
    name: service.name,
    // A service description is plain text; it is stored escaped, older rows as markup (docs/decisions/0113-plain-service-descriptions.md).
    description: htmlToText(service.description),
    serviceOwner: service.service_owner,
    subscriptionModel: service.subscription_model,
    iconUrl: service.icon_url,
    timeline: { first: service.timeline[0] ?? null, last: service.timeline.at(-1) ?? null },
  };
}

/** The fields a colleague may change underneath, as the person reads them, with the new value shown in the notice. */
const FIELDS: { key: Exclude<keyof Details, 'timeline'>; label: string; show: (d: Details) => string }[] = [
  { key: 'name', label: 'Name', show: (d) => d.name },
  { key: 'description', label: 'Description', show: (d) => d.description },
  { key: 'serviceOwner', label: 'Service Owner', show: (d) => d.serviceOwner },
  { key: 'subscriptionModel', label: 'Subscription Model', show: (d) => d.subscriptionModel },
  { key: 'iconUrl', label: 'Icon', show: (d) => (d.iconUrl ? 'a new icon' : 'no icon') },
];
const timelineText = (d: Details) => `${d.timeline.first ?? '-'} to ${d.timeline.last ?? '-'}`;
const LABELS = [...FIELDS.map((f) => f.label), 'Timeline'];
/** A field's value, by its label, in a form comparable with ===. */
function valueOf(label: string, d: Details): string | null {
  const field = FIELDS.find((f) => f.label === label);
  return field ? d[field.key] : timelineText(d);
}

/** Service Details: name, read-only slug, description, owner, subscription model, icon and timeline. */
export function DetailsTab({ service, readOnly }: { service: Service; readOnly: boolean }) {
  const update = useUpdateServiceDetails(service.id);
  const form = useSchemaForm(updateServiceSchema, detailsOf(service));
  // Leaving the page, or this tab, with unsaved details asks first.
  useUnsavedChanges(!readOnly && form.isDirty());

  // The stored values the fields were filled from.
  const basis = useRef(service);
  // A colleague's version of fields the person has changed too: shown, and taken only if they choose.
  const [theirs, setTheirs] = useState<{ version: Details; fields: string[] } | null>(null);
  const takeNewVersion = useEffectEvent(() => {
    const before = basis.current;
    basis.current = service;
    const was = detailsOf(before);
    const now = detailsOf(service);
    // Another service: every field starts from it.
    const fresh = before.id !== service.id;
    const current = form.getValues();
    // A new version (a colleague's save, live) replaces only the fields the person has not touched:
    // what they are typing stays. A plain refetch changes nothing.
    const take = <T,>(mine: T, before: T, after: T) => (fresh || mine === before ? after : mine);
    // Changed underneath a field the person changed to something else: they are told, and choose.
    // A field leaves the notice once the stored value is what the field holds.
    const clash = (label: string) => {
      const [mine, before, after] = [current, was, now].map((d) => valueOf(label, d));
      return mine !== before && before !== after && mine !== after;
    };
    setTheirs((previous) => {
      if (fresh) return null;
      const kept = (previous?.fields ?? []).filter((label) => valueOf(label, current) !== valueOf(label, now));
      const fields = [...new Set([...kept, ...LABELS.filter(clash)])];
      return fields.length ? { version: now, fields } : null;
    });
    form.setInitialValues(now);
    form.setValues({
      name: take(current.name, was.name, now.name),
      description: take(current.description, was.description, now.description),
      serviceOwner: take(current.serviceOwner, was.serviceOwner, now.serviceOwner),
      subscriptionModel: take(current.subscriptionModel, was.subscriptionModel, now.subscriptionModel),
      iconUrl: take(current.iconUrl, was.iconUrl, now.iconUrl),
      timeline: {
        first: take(current.timeline.first, was.timeline.first, now.timeline.first),
        last: take(current.timeline.last, was.timeline.last, now.timeline.last),
      },
    });
  });
  useEffect(() => takeNewVersion(), [service.id, service.version]);

  const options = useMemo(() => quarterOptions(service.timeline), [service.timeline]);
  const timelineError = form.errors.timeline ?? form.errors['timeline.first'] ?? form.errors['timeline.last'] ?? null;

  /** The colleague's values for the fields in the notice; the person's other fields stay as they are. */
  const takeTheirs = () => {
    if (!theirs) return;
    const { version, fields } = theirs;
    for (const { key, label } of FIELDS) if (fields.includes(label)) form.setFieldValue(key, version[key]);
    if (fields.includes('Timeline')) form.setFieldValue('timeline', version.timeline);
    setTheirs(null);
  };

  const save = (values: Details) => {
    const { first, last } = values.timeline;
    if (!first || !last) return;
    update.mutate(
      {
        name: values.name.trim(),
        description: values.description,
        service_owner: values.serviceOwner,
        subscription_model: values.subscriptionModel,
        icon_url: values.iconUrl,
        timeline: { first, last },
      },
      {
        onSuccess: () => {
          // What was saved is the new starting point: nothing is left to lose.
          form.resetDirty(values);
          setTheirs(null);
          window.alert(M.serviceDetailsUpdated);
        },
        onError: (err) => window.alert(messageOf(err, M.failedUpdateService)),
      },
    );
  };

  return (
    <form onSubmit={form.onSubmit(save)} noValidate>
      <Stack gap="md" maw={720}>
        {theirs && !readOnly ? (
          <ChangedNotice onUseTheirs={takeTheirs} onKeepMine={() => setTheirs(null)}>
            {theirs.fields.map((label) => {
              const field = FIELDS.find((f) => f.label === label);
              const value = field ? field.show(theirs.version) : timelineText(theirs.version);
              return (
                <Text size="sm" key={label}>
                  {label}: <strong data-testid="their-version">{value || '(empty)'}</strong>
                </Text>
              );
            })}
          </ChangedNotice>
        ) : null}
        <TextInput label="Name" required {...form.getInputProps('name')} disabled={readOnly} />
        <TextInput label="Slug" value={service.slug} readOnly description="Slug cannot be changed" />
        <Textarea label="Description" rows={3} {...form.getInputProps('description')} disabled={readOnly} />
        <TextInput label="Service Owner" {...form.getInputProps('serviceOwner')} disabled={readOnly} />
        <Textarea label="Subscription Model" rows={3} {...form.getInputProps('subscriptionModel')} disabled={readOnly} />
        <IconUpload value={form.values.iconUrl} onChange={(icon) => form.setFieldValue('iconUrl', icon)} disabled={readOnly} />
        <TimelineFields
          first={form.getInputProps('timeline.first')}
          last={form.getInputProps('timeline.last')}
          options={options}
          error={timelineError}
          disabled={readOnly}
        />
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
