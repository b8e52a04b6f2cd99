import { useMutation, useQuery } from '@tanstack/react-query';
import { get, post } from '@/lib/request';
import type { DeploymentCreated, DeviceInventory } from '@cpc/contracts/application';

/** The application section's API (issue 15, /application/…) as the AI terminal page uses it: model deployments. */
export const deployModel = (body: { packageId: number; deviceIds: number[]; groupIds: number[] }) =>
  post<DeploymentCreated>('/application/deployment', { kind: 'model', action: 'install', ...body });

export const getDeviceModels = (deviceId: number) => get<DeviceInventory>(`/application/device/${deviceId}/inventory`);

export const useDeployModel = () => useMutation({ mutationFn: deployModel });
export const useDeviceModels = (deviceId: number | undefined) =>
  useQuery({
    queryKey: ['ai-library', 'device-models', deviceId],
    queryFn: () => getDeviceModels(deviceId!),
    enabled: deviceId !== undefined,
  });
