// Mounts the UI into index.html's #app element.
import { mount } from 'svelte';
import App from './App.svelte';
// The app's typeface, bundled (Inter, variable weight, upright and italic;
// @fontsource-variable/inter): the same look on every desktop, and no
// remote font, which the CSP would refuse anyway. Its licence (OFL 1.1)
// ships beside it: ui/public/licenses/Inter-OFL.txt.
import '@fontsource-variable/inter/wght.css';
import '@fontsource-variable/inter/wght-italic.css';
import './app.css';

const target = document.getElementById('app');
if (!target) {
  throw new Error('index.html has no #app element');
}

export default mount(App, { target });
