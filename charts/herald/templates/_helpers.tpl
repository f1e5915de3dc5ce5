{{/* Names and labels shared by every template. */}}
{{- define "herald.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "herald.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "herald.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "herald.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "herald.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "herald.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: herald
{{- end -}}

{{/* selectorLabels takes (dict "root" $ "component" "server"). */}}
{{- define "herald.selectorLabels" -}}
app.kubernetes.io/name: {{ include "herald.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "herald.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Restricted Pod Security Standard, for every pod of the chart. */}}
{{- define "herald.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "herald.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "herald.secretName" -}}{{ include "herald.fullname" . }}-secrets{{- end -}}
{{- define "herald.operatorName" -}}{{ include "herald.fullname" . }}-operator{{- end -}}

{{- define "herald.mongodbSecretName" -}}
{{- default (include "herald.secretName" .) .Values.mongodb.existingSecret -}}
{{- end -}}
{{- define "herald.mongodbSecretKey" -}}
{{- if .Values.mongodb.existingSecret }}{{ .Values.mongodb.existingSecretKey }}{{ else }}mongodb-uri{{ end -}}
{{- end -}}
{{- define "herald.masterKeySecretName" -}}
{{- default (include "herald.secretName" .) .Values.masterKey.existingSecret -}}
{{- end -}}
{{- define "herald.masterKeySecretKey" -}}
{{- if .Values.masterKey.existingSecret }}{{ .Values.masterKey.existingSecretKey }}{{ else }}master-key{{ end -}}
{{- end -}}
{{/* The operator's Herald API token: existingSecret (issued with `herald-server token create`),
     else operator.token.value or a generated token, both kept in the chart's Secret under
     "operator-token" and handed to the host as a seed token (see herald.seedsOperatorToken). */}}
{{- define "herald.operatorTokenSecretName" -}}
{{- default (include "herald.secretName" .) .Values.operator.token.existingSecret -}}
{{- end -}}
{{- define "herald.operatorTokenSecretKey" -}}
{{- if .Values.operator.token.existingSecret }}{{ .Values.operator.token.existingSecretKey }}{{ else }}operator-token{{ end -}}
{{- end -}}
{{/* "true" when the chart owns the operator's token and the host must seed it (else empty). */}}
{{- define "herald.seedsOperatorToken" -}}
{{- if and .Values.operator.enabled (not .Values.operator.token.existingSecret) }}true{{ end -}}
{{- end -}}
{{- define "herald.seedTokensKey" -}}seed-tokens.json{{- end -}}

{{/* The operator token in plain text: operator.token.value, else the one the live Secret already
     holds (lookup, so upgrades and re-renders keep it), else a new one: "hrd_" + base64url of 32
     random bytes without padding (43 characters), the format herald-server checks. */}}
{{- define "herald.operatorTokenValue" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "herald.secretName" .) -}}
{{- if .Values.operator.token.value -}}
{{- .Values.operator.token.value -}}
{{- else if and $existing $existing.data (hasKey $existing.data "operator-token") -}}
{{- index $existing.data "operator-token" | b64dec -}}
{{- else -}}
{{- printf "hrd_%s" (randBytes 32 | replace "+" "-" | replace "/" "_" | trimSuffix "=") -}}
{{- end -}}
{{- end -}}

{{/* A value generated once: reuse what the live Secret holds (lookup) so upgrades keep it. */}}
{{- define "herald.stableRandom" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "herald.secretName" .root) -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- .generate | b64enc -}}
{{- end -}}
{{- end -}}

{{/* Environment shared by the API and worker containers of the host. */}}
{{- define "herald.hostEnv" -}}
- name: HERALD_MONGODB_URI
  valueFrom:
    secretKeyRef:
      name: {{ include "herald.mongodbSecretName" . }}
      key: {{ include "herald.mongodbSecretKey" . }}
- name: HERALD_MASTER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "herald.masterKeySecretName" . }}
      key: {{ include "herald.masterKeySecretKey" . }}
{{- with .Values.config.nodeOptions }}
- name: NODE_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* What the operator may do in a watched namespace (ClusterRole or per-namespace Role). */}}
{{- define "herald.operatorRules" -}}
- apiGroups: [herald.dev]
  resources: [webhooksubscribers]
  verbs: [get, list, watch, update, patch]
- apiGroups: [herald.dev]
  resources: [webhooksubscribers/status]
  verbs: [get, update, patch]
- apiGroups: [herald.dev]
  resources: [webhooksubscribers/finalizers]
  verbs: [update]
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}
