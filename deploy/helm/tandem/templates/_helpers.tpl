{{/*
The labels Helm's conventions add to every object of a release, beside the manifest's own.
*/}}
{{- define "tandem.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
An image with the repository and tag of an app's `image` values, each kept from the
manifest when empty. Called with (list <image> <the app's values>).
*/}}
{{- define "tandem.image" -}}
{{- $image := index . 0 }}
{{- $values := (index . 1).image | default dict }}
{{- $tag := regexFind ":[^:/]+$" $image }}
{{- $repository := trimSuffix $tag $image }}
{{- printf "%s:%s" ($values.repository | default $repository) ($values.tag | default (trimPrefix ":" $tag)) }}
{{- end }}

{{/*
Applies an app's values to its Deployment (a map from fromYaml, changed in place):
replicas, and on its containers the image, the resources and the extra flags; on the
init containers (if any) the image only. Called with (list <deployment> <the app's values>).
*/}}
{{- define "tandem.applyAppValues" -}}
{{- $deployment := index . 0 }}
{{- $values := index . 1 }}
{{- if not (kindIs "invalid" $values.replicas) }}
{{- $_ := set $deployment.spec "replicas" $values.replicas }}
{{- end }}
{{- $pod := $deployment.spec.template.spec }}
{{- range $container := concat ($pod.initContainers | default list) $pod.containers }}
{{- $_ := set $container "image" (include "tandem.image" (list $container.image $values)) }}
{{- end }}
{{- range $container := $pod.containers }}
{{- if $values.resources }}
{{- $_ := set $container "resources" $values.resources }}
{{- end }}
{{- if $values.extraArgs }}
{{- $_ := set $container "args" (concat ($container.args | default list) $values.extraArgs) }}
{{- end }}
{{- end }}
{{- end }}
