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
{{/* The operator's Herald API token: existingSecret, else token.value stored in the chart's Secret,
     else a Secret named <fullname>-operator-token that NOTES.txt tells how to create. */}}
{{- define "herald.operatorTokenSecretName" -}}
{{- if .Values.operator.token.existingSecret }}{{ .Values.operator.token.existingSecret }}
{{- else if .Values.operator.token.value }}{{ include "herald.secretName" . }}
{{- else }}{{ include "herald.fullname" . }}-operator-token{{ end -}}
{{- end -}}
{{- define "herald.operatorTokenSecretKey" -}}
{{- if .Values.operator.token.existingSecret }}{{ .Values.operator.token.existingSecretKey }}
{{- else if .Values.operator.token.value }}operator-token
{{- else }}token{{ end -}}
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
