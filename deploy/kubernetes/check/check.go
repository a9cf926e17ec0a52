// Package check reads deploy/kubernetes's manifests as the Kubernetes API types, strictly
// (an unknown or misspelt field is an error), for its test to check what a sharded export
// needs of them. It is a module of its own, so that the program does not depend on the
// Kubernetes API modules.
package check

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Objects are the manifests' objects by kind.
type Objects struct {
	Jobs map[string]*batchv1.Job
	PVCs map[string]*corev1.PersistentVolumeClaim
}

// Read reads every document of the YAML files, refusing unknown fields and kinds.
func Read(paths ...string) (Objects, error) {
	objs := Objects{Jobs: map[string]*batchv1.Job{}, PVCs: map[string]*corev1.PersistentVolumeClaim{}}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return objs, err
		}
		for i, doc := range bytes.Split(data, []byte("\n---")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				return objs, fmt.Errorf("%s, document %d: %v", p, i+1, err)
			}
			switch meta.APIVersion + " " + meta.Kind {
			case "batch/v1 Job":
				var j batchv1.Job
				if err := yaml.UnmarshalStrict(doc, &j); err != nil {
					return objs, fmt.Errorf("%s, document %d: %v", p, i+1, err)
				}
				objs.Jobs[j.Name] = &j
			case "v1 PersistentVolumeClaim":
				var c corev1.PersistentVolumeClaim
				if err := yaml.UnmarshalStrict(doc, &c); err != nil {
					return objs, fmt.Errorf("%s, document %d: %v", p, i+1, err)
				}
				objs.PVCs[c.Name] = &c
			default:
				return objs, fmt.Errorf("%s, document %d: unexpected %s", p, i+1, strings.TrimSpace(meta.APIVersion+" "+meta.Kind))
			}
		}
	}
	return objs, nil
}
