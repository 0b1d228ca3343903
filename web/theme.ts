import { createTheme, Modal, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 keeps white button text above the WCAG AA contrast ratio.
  primaryShade: { light: 8, dark: 6 },
  defaultRadius: 'md',
  // Transitions are skipped for people who ask their system for reduced motion.
  respectReducedMotion: true,
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  headings: { fontWeight: '650' },
  components: {
    // Modals render in place (a portal's <header> would be a second banner landmark) and their
    // close button has a name.
    Modal: Modal.extend({ defaultProps: { withinPortal: false, closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Dimmed, placeholder and error text dark enough for AA contrast on white and light-gray backgrounds. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': '#555d66', '--mantine-color-placeholder': '#6b7280', '--mantine-color-error': '#c92a2a' },
  dark: {},
});
