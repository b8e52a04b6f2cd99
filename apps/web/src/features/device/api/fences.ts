import { useQuery } from '@tanstack/react-query';
import type { DeviceFences, FenceMapSettings, FenceTrack } from '@cpc/contracts/fence';
import { get } from '@/lib/request';
import { DEVICE_KEY } from './devices';

/** The fences that apply to a device with its side in each, and its track (the fence section's calls). */
export const deviceFencesKey = (id: number) => [...DEVICE_KEY, 'fences', id] as const;
export const deviceTrackKey = (id: number) => [...DEVICE_KEY, 'track', id] as const;

export const useDeviceFences = (deviceId: number, enabled: boolean) =>
  useQuery({
    queryKey: deviceFencesKey(deviceId),
    queryFn: () => get<DeviceFences>('/fence/device', { deviceId }, { quiet: true }),
    enabled: enabled && deviceId > 0,
  });

export const useDeviceTrack = (deviceId: number, enabled: boolean, hours = 24) =>
  useQuery({
    queryKey: [...deviceTrackKey(deviceId), hours],
    queryFn: () => get<FenceTrack>('/fence/track', { deviceId, hours }, { quiet: true }),
    enabled: enabled && deviceId > 0,
  });

export const useFenceMapSettings = (enabled: boolean) =>
  useQuery({
    queryKey: [...DEVICE_KEY, 'fence-map'],
    queryFn: () => get<FenceMapSettings>('/fence/map', undefined, { quiet: true }),
    enabled,
    staleTime: 10 * 60_000,
  });
