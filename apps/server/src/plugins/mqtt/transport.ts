/** What the gateway needs from a broker, embedded or external. */
export interface TransportHandlers {
  /** An up message (topic already checked by the broker's ACL); handled asynchronously. */
  message(topic: string, payload: Buffer): void;
  /**
   * A device's connection ended (clean or not) with the connection id of its hello. Only the embedded broker
   * sees disconnects; with an external one the last will and the explicit `offline` message carry them.
   */
  disconnect?(sn: string, conn: string): void;
}

export interface Transport {
  readonly kind: 'embedded' | 'external';
  /** Where devices connect (the embedded broker's address, or MQTT_URL without credentials). */
  readonly deviceUrl: string;
  start(handlers: TransportHandlers): Promise<void>;
  publish(topic: string, payload: Buffer): Promise<void>;
  /** Devices connected to this node's broker (embedded only). */
  connectedDevices(): number | null;
  close(): Promise<void>;
}
