import L from 'leaflet';

// Leaflet-Geoman is a classic plugin: it extends the global `L` when its module runs, so the global has to be set
// before it is imported (geo-map.tsx imports this module first).
(globalThis as unknown as { L: typeof L }).L = L;

export default L;
