import { createHashRouter } from 'react-router';
import { setNavigate } from '../lib/navigation';
import { createRoutes } from './routes';

/** The console's one router (SPEC §2: hash mode). Code outside React navigates through it. */
export const router = createHashRouter(createRoutes());

setNavigate((to, options) => void router.navigate(to, options));
