package wire

// Environment variables a device agent injects into an app container (docs/wire.md §3).
const (
	EnvSerialNumber   = "DEVICE_SERIAL_NUMBER"
	EnvDeviceKey      = "DEVICE_KEY"
	EnvDeviceName     = "DEVICE_NAME"
	EnvSwarmKey       = "SWARM_KEY"
	EnvAppKey         = "APP_KEY"
	EnvAppName        = "APP_NAME"
	EnvStage          = "ENV"
	EnvEndpointURL    = "DEVICE_ENDPOINT_URL"
	EnvStudioURL      = "RESWARM_URL"
	EnvAppAuthID      = "APP_AUTH_ID"
	EnvAppAuthSecret  = "APP_AUTH_SECRET"
	EnvEnvDir         = "IRONFLOCK_ENV_DIR"
	EnvInstanceKey    = "INSTANCE_KEY"
	EnvTunnelDomain   = "TUNNEL_DOMAIN"
	EnvCloudTunnel    = "CLOUD_TUNNEL_DOMAIN"
	EnvRemotePortPfx  = "REMOTE_PORT_FOR_"
	EnvCloudSuffix    = "_CLOUD"
	DefaultEnvDir     = "/data/env"
	DefaultTunnelHost = "app.ironflock.com"
)

// Stage names. The realm name and the per-app authid use the lower-case form,
// device-function URIs and the credential message the upper-case form.
const (
	StageDev  = "DEV"
	StageProd = "PROD"
)
