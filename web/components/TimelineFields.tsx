import { Group, Select, Text, type SelectProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { MAX_TIMELINE_QUARTERS } from '../../common/limits';
import { addQuarters, compareQuarters, quarterOf, quarterRange } from '../../common/quarters';

/** Quarters offered for a timeline: around the given one and today, far enough for 40 quarters. */
export function quarterOptions(timeline: string[]): string[] {
  const now = quarterOf(new Date());
  const first = timeline[0] && compareQuarters(timeline[0], now) < 0 ? timeline[0] : now;
  const last = timeline.at(-1) && compareQuarters(timeline.at(-1)!, now) > 0 ? timeline.at(-1)! : now;
  return quarterRange(addQuarters(first, -8), addQuarters(last, MAX_TIMELINE_QUARTERS));
}

type QuarterInput = Pick<SelectProps, 'value' | 'onChange' | 'onBlur' | 'onFocus'>;

/** A service's timeline as its first and last quarter (CONTRACT section 3), with its limit or its error below. */
export function TimelineFields({
  first,
  last,
  options,
  error,
  disabled,
}: {
  first: QuarterInput;
  last: QuarterInput;
  options: string[];
  error: ReactNode;
  disabled?: boolean;
}) {
  return (
    <>
      <Group grow align="flex-start">
        <Select label="Timeline first quarter" data={options} {...first} error={Boolean(error)} allowDeselect={false} disabled={disabled} searchable />
        <Select label="Timeline last quarter" data={options} {...last} error={Boolean(error)} allowDeselect={false} disabled={disabled} searchable />
      </Group>
      {error ? (
        <Text c="red.9" size="sm" role="alert">
          {error}
        </Text>
      ) : (
        <Text size="xs" c="dimmed">
          At most {MAX_TIMELINE_QUARTERS} quarters. Availability outside the timeline is kept and reappears when the timeline covers it again.
        </Text>
      )}
    </>
  );
}
