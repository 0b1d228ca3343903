import { Box } from '@mantine/core';
import type { ReactNode } from 'react';
import { ImpersonationBanner } from './ImpersonationBanner';

/**
 * The frame of every signed-in screen: the skip link, the impersonation banner, the page's
 * header, its main content (the skip link's target) and an optional footer.
 */
export function AppLayout({ header, children, footer }: { header: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <Box className="app-frame">
      <a className="skip-link" href="#main-content">
        Skip to main content
      </a>
      <ImpersonationBanner />
      {header}
      <Box component="main" id="main-content" tabIndex={-1} className="app-main" px={{ base: 'sm', sm: 'lg' }} pb="xl">
        {children}
      </Box>
      {footer ? (
        <Box component="footer" className="app-footer" px={{ base: 'sm', sm: 'lg' }} py="md">
          {footer}
        </Box>
      ) : null}
    </Box>
  );
}
