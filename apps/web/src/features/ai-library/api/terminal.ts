import { useMutation, useQuery } from '@tanstack/react-query';
import { get, post } from '@/lib/request';

/**
 * The application section's API (issue 15, /application/…) as the AI terminal page uses it: deployments of kind
 * 'model' and a device's reported models. The shapes are those of contracts `application.ts` (h-application):
 * only the fields this page reads are typed here, until that section lands.
 */
export interface ModelDeploymentCreated {
  id: number;
  devices: number;
  skipped: number;
}
export interface DeviceModels {
  deviceId: number;
  reportedAt: string | null;
  models: Array<{ name: string; version: string; framework: string }>;
}

export const deployModel = (body: { packageId: number; deviceIds: number[]; groupIds: number[] }) =>
  post<ModelDeploymentCreated>('/application/deployment', { kind: 'model', action: 'install', ...body });

export const getDeviceModels = (deviceId: number) => get<DeviceModels>(`/application/device/${deviceId}/inventory`);

export const useDeployModel = () => useMutation({ mutationFn: deployModel });
export const useDeviceModels = (deviceId: number | undefined) =>
  useQuery({
    queryKey: ['ai-library', 'device-models', deviceId],
    queryFn: () => getDeviceModels(deviceId!),
    enabled: deviceId !== undefined,
  });
