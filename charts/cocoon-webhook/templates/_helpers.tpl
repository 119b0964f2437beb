{{/* The chart's name, or nameOverride: the app.kubernetes.io/name label and its selectors. */}}
{{- define "cocoon-webhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{/*
The release's object names start with this: fullnameOverride, else the release name when it
already holds the chart's name (a release called cocoon-webhook), else <release>-<name>.
*/}}
{{- define "cocoon-webhook.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* The ServiceAccount the webhook runs as: serviceAccount.name, else the fullname (or default when the chart creates none). */}}
{{- define "cocoon-webhook.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "cocoon-webhook.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end }}

{{/* The Secret with the serving certificate (tls.crt, tls.key, ca.crt). */}}
{{- define "cocoon-webhook.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "cocoon-webhook.fullname" .)) .Values.certificate.secretName -}}
{{- end }}

{{/* The image: repository@digest when a digest is set, else repository:tag (the chart's appVersion by default). */}}
{{- define "cocoon-webhook.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/* Labels every object of the release carries: the release's standard ones, then commonLabels. */}}
{{- define "cocoon-webhook.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The webhook's selector labels (immutable in a Deployment: the release's labels stay out). */}}
{{- define "cocoon-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cocoon-webhook.name" . }}
{{- end }}

{{/* The labels of the webhook's objects: its name, the platform, then the release's. */}}
{{- define "cocoon-webhook.objectLabels" -}}
{{ include "cocoon-webhook.selectorLabels" . }}
app.kubernetes.io/part-of: cocoonstack
{{ include "cocoon-webhook.labels" . }}
{{- end }}

{{/* The labels of audit's objects. */}}
{{- define "cocoon-webhook.auditLabels" -}}
app.kubernetes.io/name: {{ include "cocoon-webhook.name" . }}-audit
app.kubernetes.io/part-of: cocoonstack
{{ include "cocoon-webhook.labels" . }}
{{- end }}

{{/* "true" when the release runs the webhook in the cluster: replicas, or an autoscaler. URL mode (replicaCount 0) runs none. */}}
{{- define "cocoon-webhook.inCluster" -}}
{{- if or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 0) -}}true{{- end -}}
{{- end }}

{{/* The fewest replicas the Deployment runs, and the checks that depend on it. */}}
{{- define "cocoon-webhook.minReplicas" -}}
{{- $replicas := int .Values.replicaCount -}}
{{- if .Values.autoscaling.enabled -}}
{{- $replicas = int .Values.autoscaling.minReplicas -}}
{{- if gt $replicas (int .Values.autoscaling.maxReplicas) -}}
{{- fail "autoscaling.minReplicas must not be above autoscaling.maxReplicas" -}}
{{- end -}}
{{- end -}}
{{- $available := .Values.podDisruptionBudget.minAvailable -}}
{{- if and .Values.podDisruptionBudget.enabled (gt $replicas 0) (not (kindIs "string" $available)) (ge (int $available) $replicas) -}}
{{- fail (printf "podDisruptionBudget.minAvailable (%d) must be below the replica count (%d), or no node could ever be drained" (int $available) $replicas) -}}
{{- end -}}
{{- if eq (int .Values.ports.admission) (int .Values.ports.metrics) -}}
{{- fail "ports.admission and ports.metrics must differ" -}}
{{- end -}}
{{- $replicas -}}
{{- end }}

{{/* The namespaces the pod gate and the scale guard leave alone; the release's own is always one. */}}
{{- define "cocoon-webhook.excludedNamespaces" -}}
{{- $namespaces := .Values.webhook.excludedNamespaces | default list -}}
{{- if not (has .Release.Namespace $namespaces) -}}
{{- $namespaces = append $namespaces .Release.Namespace -}}
{{- end -}}
{{- toYaml $namespaces -}}
{{- end }}

{{/*
The certificate the generate source makes: {ca, crt, key}, PEM. The Secret of an earlier
revision is kept (lookup), so an upgrade changes neither the CA nor caBundle; a render without
a cluster (helm template) makes a new pair. Made once per render and shared by the Secret and
both webhook configurations.
*/}}
{{- define "cocoon-webhook.generatedCertificate" -}}
{{- $cache := .Values.certificate -}}
{{- if not (hasKey $cache "rendered") -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "cocoon-webhook.tlsSecretName" .) -}}
{{- $data := dig "data" dict $secret -}}
{{- if and (hasKey $data "ca.crt") (hasKey $data "tls.crt") (hasKey $data "tls.key") -}}
{{- $_ := set $cache "rendered" (dict "ca" (index $data "ca.crt" | b64dec) "crt" (index $data "tls.crt" | b64dec) "key" (index $data "tls.key" | b64dec)) -}}
{{- else -}}
{{- $fullname := include "cocoon-webhook.fullname" . -}}
{{- $days := int .Values.certificate.generate.validityDays -}}
{{- $ca := genCA (printf "%s-ca" $fullname) $days -}}
{{- $service := printf "%s.%s.svc" $fullname .Release.Namespace -}}
{{- $cert := genSignedCert $service nil (list $service (printf "%s.cluster.local" $service)) $days $ca -}}
{{- $_ := set $cache "rendered" (dict "ca" $ca.Cert "crt" $cert.Cert "key" $cert.Key) -}}
{{- end -}}
{{- end -}}
{{- toJson $cache.rendered -}}
{{- end }}

{{/* caBundle of a clientConfig: given, generated by the chart, or injected by cert-manager (then absent here). */}}
{{- define "cocoon-webhook.caBundle" -}}
{{- if .Values.webhook.caBundle -}}
caBundle: {{ .Values.webhook.caBundle }}
{{- else if eq .Values.certificate.source "generate" -}}
caBundle: {{ (include "cocoon-webhook.generatedCertificate" . | fromJson).ca | b64enc }}
{{- else if eq .Values.certificate.source "secret" -}}
{{- fail "webhook.caBundle is required with certificate.source secret: the apiserver must trust the serving certificate (or use certificate.source generate, and the chart makes both)" -}}
{{- end -}}
{{- end }}

{{/*
cert-manager must serve cert-manager.io/v1 where the release is installed or upgraded. helm
template and helm lint know no cluster: pass --api-versions cert-manager.io/v1 to template.
*/}}
{{- define "cocoon-webhook.requireCertManager" -}}
{{- if and (eq .Values.certificate.source "cert-manager") (not (.Capabilities.APIVersions.Has "cert-manager.io/v1")) (or .Release.IsInstall .Release.IsUpgrade) -}}
{{- fail "certificate.source is cert-manager, but this cluster serves no cert-manager.io/v1 API (the Certificate and Issuer kinds): install cert-manager first (https://cert-manager.io/docs/installation/), or set certificate.source=generate to let the chart make its own CA and serving certificate. (helm template and helm install --dry-run=client know no cluster: give helm template --api-versions cert-manager.io/v1, or dry-run with --dry-run=server.)" -}}
{{- end -}}
{{- end }}

{{/* POD_CREATORS from podCreators: identity[=group/Kind|…] joined with commas. */}}
{{- define "cocoon-webhook.podCreators" -}}
{{- $entries := list -}}
{{- range .Values.podCreators -}}
{{- $entry := .identity -}}
{{- with .kinds }}{{ $entry = printf "%s=%s" $entry (join "|" .) }}{{ end -}}
{{- $entries = append $entries $entry -}}
{{- end -}}
{{- join "," $entries -}}
{{- end }}

{{/*
RUNTIME_IDENTITIES from runtimeIdentities: usernames and system:node:*, joined with commas. An
empty list is a lone ",", which lists no one (an empty variable would take the binary's default).
*/}}
{{- define "cocoon-webhook.runtimeIdentities" -}}
{{- with .Values.runtimeIdentities }}{{ join "," . }}{{ else }},{{ end -}}
{{- end }}

{{/* ENFORCEMENT from enforcement, in the endpoint table's order (test/chart checks the list). */}}
{{- define "cocoon-webhook.enforcement" -}}
{{- $pairs := list -}}
{{- with .Values.enforcement -}}
{{- $actions := . -}}
{{- range $endpoint := list "mutate" "validate" "validate-cocoonset" "validate-cocoonhibernation" -}}
{{- with index $actions $endpoint }}{{ $pairs = append $pairs (printf "%s=%s" $endpoint .) }}{{ end -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end }}

{{/*
The webhook's environment from values, name → text, unset variables left out: the structured
values joined into their syntax, every env value matched against the pattern start-up checks
it with, whatever its YAML type: the schema's patterns check strings only, so an integer from
--set would pass it (test/chart holds these patterns to the schema's).
*/}}
{{- define "cocoon-webhook.environment" -}}
{{- $environment := dict -}}
{{- $patterns := dict "APISERVER_TIMEOUT" "^$|^\\s*(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*(?:\\d*[1-9]\\d*(?:\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)(?:ms|s|m|h)(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*\\s*$" "APISERVER_LIST_PAGE_SIZE" "^$|^0*(?:[1-9]\\d?|[1-4]\\d\\d|500)$" "SHUTDOWN_TIMEOUT" "^$|^\\s*(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*(?:\\d*[1-9]\\d*(?:\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)(?:ms|s|m|h)(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*\\s*$" "MAX_REQUEST_BYTES" "^$|^0*[1-9]\\d*$" "BODY_READ_TIMEOUT" "^$|^\\s*(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*(?:\\d*[1-9]\\d*(?:\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)(?:ms|s|m|h)(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))*\\s*$" "DRAIN_DELAY" "^$|^\\s*(?:0|(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+)\\s*$" "METRICS_RENDER_INTERVAL" "^$|^\\s*(?:0|(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+)\\s*$" -}}
{{- range $name, $value := .Values.env -}}
{{- if kindIs "float64" $value }}{{ $value = int64 $value }}{{ end -}}
{{- if not (kindIs "invalid" $value) -}}
{{- $text := toString $value -}}
{{- $pattern := get $patterns $name -}}
{{- if and $text $pattern (not (regexMatch $pattern $text)) -}}
{{- fail (printf "env.%s: %q is not a value the webhook starts with (it must match %s; docs/configuration.md)" $name $text $pattern) -}}
{{- end -}}
{{- if $text }}{{ $_ := set $environment $name $text }}{{ end -}}
{{- end -}}
{{- end -}}
{{- with include "cocoon-webhook.podCreators" . }}{{ $_ := set $environment "POD_CREATORS" . }}{{ end -}}
{{- with include "cocoon-webhook.runtimeIdentities" . }}{{ $_ := set $environment "RUNTIME_IDENTITIES" . }}{{ end -}}
{{- with include "cocoon-webhook.enforcement" . }}{{ $_ := set $environment "ENFORCEMENT" . }}{{ end -}}
{{- $timeout := include "cocoon-webhook.milliseconds" (get $environment "APISERVER_TIMEOUT" | default "3s") | int -}}
{{- if ge $timeout (mul (int .Values.webhook.timeoutSeconds) 1000 | int) -}}
{{- fail (printf "env.APISERVER_TIMEOUT (%dms, 3s when unset) must be below webhook.timeoutSeconds (%ds): the apiserver gives up on the webhook at its timeout, so a slower apiserver read would fail the request instead of ending in the webhook's own verdict" $timeout (int .Values.webhook.timeoutSeconds)) -}}
{{- end -}}
{{- toJson $environment -}}
{{- end }}

{{/* A Go duration (1m30s, 800ms) in whole milliseconds. */}}
{{- define "cocoon-webhook.milliseconds" -}}
{{- $units := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 -}}
{{- $total := 0.0 -}}
{{- range regexFindAll "[0-9]+(?:\\.[0-9]+)?(?:ms|s|m|h)" (trim .) -1 -}}
{{- $total = addf $total (mulf (regexFind "^[0-9.]+" . | float64) (get $units (regexFind "(?:ms|s|m|h)$" .))) -}}
{{- end -}}
{{- $total | int -}}
{{- end }}

{{/* A webhook's clientConfig for an endpoint path: the Service, or webhook.url in URL mode. */}}
{{- define "cocoon-webhook.clientConfig" -}}
{{- $root := .root -}}
clientConfig:
  {{- if $root.Values.webhook.url }}
  url: {{ printf "%s%s" (trimSuffix "/" $root.Values.webhook.url) .path | quote }}
  {{- else }}
  service:
    name: {{ include "cocoon-webhook.fullname" $root }}
    namespace: {{ $root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  {{- end }}
  {{- include "cocoon-webhook.caBundle" $root | nindent 2 }}
failurePolicy: {{ $root.Values.webhook.failurePolicy }}
timeoutSeconds: {{ $root.Values.webhook.timeoutSeconds }}
{{- end }}

{{/* cert-manager's cainjector fills caBundle from the serving Certificate. */}}
{{- define "cocoon-webhook.injectCA" -}}
{{- if eq .Values.certificate.source "cert-manager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "cocoon-webhook.fullname" . }}-tls
{{- end }}
{{- end }}

{{/* A Prometheus duration as an alert's text says it: 5m → 5 minutes, 24h → a day, 7d → a week. */}}
{{- define "cocoon-webhook.spokenDuration" -}}
{{- $spoken := dict "1m" "a minute" "1h" "an hour" "60m" "an hour" "1d" "a day" "24h" "a day" "7d" "a week" "1w" "a week" -}}
{{- if hasKey $spoken . -}}
{{- get $spoken . -}}
{{- else if regexMatch "^[0-9]+m$" . -}}
{{- trimSuffix "m" . }} minutes
{{- else if regexMatch "^[0-9]+h$" . -}}
{{- trimSuffix "h" . }} hours
{{- else if regexMatch "^[0-9]+d$" . -}}
{{- trimSuffix "d" . }} days
{{- else -}}
{{- . -}}
{{- end -}}
{{- end }}

{{/* A factor as an alert's text says it: 2 → twice, 3 → three times, 10 → 10 times. */}}
{{- define "cocoon-webhook.spokenFactor" -}}
{{- $spoken := dict "2" "twice" "3" "three times" "4" "four times" "5" "five times" -}}
{{- $factor := toString . -}}
{{- if hasKey $spoken $factor -}}
{{- get $spoken $factor -}}
{{- else -}}
{{- $factor }} times
{{- end -}}
{{- end }}
