set -euo pipefail
reports="$1"
shift
name=cocoon-webhook-audit
managed=app.kubernetes.io/managed-by=cocoon-webhook
# "NAMESPACE SCOPE" for each report as stored (a List when there are several).
each='{{define "report"}}{{.metadata.namespace}} {{with .metadata.annotations}}'
each+='{{index . "audit.cocoon-webhook.cocoonstack.io/scope"}}{{end}}{{"\n"}}{{end}}'
each+='{{range .items}}{{template "report" .}}{{else}}{{template "report" .}}{{end}}'
written="$(< "$reports")"
applied=""
if [[ "$written" == *'"PolicyReport"'* ]]; then
  applied="$(kubectl apply "$@" --server-side --field-manager=$name \
    --force-conflicts --filename="$reports" --output=go-template="$each")"
  echo "applied the PolicyReport of each namespace audited"
else
  echo "no namespace had an object to check: no PolicyReport to apply"
fi
declare -A current=()
while read -r namespace audited; do
  [[ -n "$namespace" ]] || continue
  if [[ "$audited" != all-namespaces ]]; then
    echo "the report in $namespace is scoped \"$audited\", not all-namespaces:"
    echo "reports in other namespaces left alone"
    exit 0
  fi
  current[$namespace]=1
done <<< "$applied"
stored="$(kubectl get "$@" policyreports.wgpolicyk8s.io --all-namespaces \
  --selector="$managed" --field-selector="metadata.name=$name" \
  --output=jsonpath='{range .items[*]}{.metadata.namespace}{"\n"}{end}')"
for namespace in $stored; do
  [[ -z "${current[$namespace]:-}" ]] || continue
  echo "no object left to check in namespace $namespace: deleting its report"
  kubectl delete "$@" policyreports.wgpolicyk8s.io "$name" \
    --namespace="$namespace" --ignore-not-found
done
