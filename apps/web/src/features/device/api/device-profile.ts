import { useQuery } from '@tanstack/react-query';
import type { DeviceProfile } from '@cpc/contracts/system-custom';
import { request } from '@/lib/request';
import { DEVICE_KEY } from './devices';

/** The device's effective customization profile (issue 16): where it comes from, the applied version, drift. */
export const getDeviceProfile = (deviceId: number) =>
  request<DeviceProfile>({ url: '/systemCustom/device', method: 'get', params: { deviceId }, quiet: true });

export const deviceProfileKey = (deviceId: number) => [...DEVICE_KEY, 'profile', deviceId] as const;

export const useDeviceProfile = (deviceId: number, enabled: boolean) =>
  useQuery({
    queryKey: deviceProfileKey(deviceId),
    queryFn: () => getDeviceProfile(deviceId),
    enabled: enabled && deviceId > 0,
  });
