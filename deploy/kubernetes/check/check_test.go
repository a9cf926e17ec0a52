package check

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func read(t *testing.T) Objects {
	t.Helper()
	paths, _ := filepath.Glob("../*.yaml")
	if len(paths) < 3 {
		t.Fatalf("manifests: %v", paths)
	}
	objs, err := Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// flag returns the value of --name= in args ("" when absent).
func flag(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// output returns the argument after -o, or the last argument.
func output(args []string) string {
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return args[len(args)-1]
}

// sharedMount checks that the pod mounts the claim pvc and returns where.
func sharedMount(t *testing.T, name string, spec corev1.PodSpec, pvc string) string {
	t.Helper()
	vol := ""
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc {
			vol = v.Name
		}
	}
	if vol == "" {
		t.Fatalf("%s: no volume of the claim %s", name, pvc)
	}
	for _, m := range spec.Containers[0].VolumeMounts {
		if m.Name == vol {
			if m.ReadOnly {
				t.Errorf("%s: the shared volume is read-only", name)
			}
			return m.MountPath
		}
	}
	t.Fatalf("%s: the shared volume is not mounted", name)
	return ""
}

func TestManifests(t *testing.T) {
	objs := read(t)
	pvc := objs.PVCs["mandelscope-shared"]
	if pvc == nil {
		t.Fatal("no PersistentVolumeClaim mandelscope-shared")
	}
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("the shared claim's access modes are %v: every pod writes it (ReadWriteMany)", pvc.Spec.AccessModes)
	}
	shards, asm := objs.Jobs["mandelscope-shards"], objs.Jobs["mandelscope-assemble"]
	if shards == nil || asm == nil {
		t.Fatalf("jobs: %v", objs.Jobs)
	}

	// The shards: an Indexed Job whose index reaches --shard, N agreeing everywhere.
	s := shards.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatal("the shards' Job is not Indexed")
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Parallelism > *s.Completions || *s.Parallelism < 1 {
		t.Fatalf("completions %v, parallelism %v", s.Completions, s.Parallelism)
	}
	n := int(*s.Completions)
	c := s.Template.Spec.Containers[0]
	args := append(append([]string{}, c.Command...), c.Args...)
	if len(c.Command) < 2 || c.Command[len(c.Command)-1] != "export" {
		t.Fatalf("the shard runs %v, not mandelscope export", c.Command)
	}
	if got, want := flag(args, "shard"), fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n); got != want {
		t.Errorf("--shard=%s, want %s (the index of %d completions)", got, want, n)
	}
	indexEnv := false
	for _, e := range c.Env {
		if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			indexEnv = true
		}
	}
	if !indexEnv {
		t.Error("JOB_COMPLETION_INDEX is not declared from the completion index annotation (needed for $(...) in args)")
	}
	if p := s.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		t.Errorf("restart policy %q", p)
	}
	mount := sharedMount(t, "shards", s.Template.Spec, pvc.Name)
	out := output(args)
	if !strings.HasPrefix(out, mount+"/") || !strings.HasSuffix(out, ".png") {
		t.Errorf("the shards write %s, outside the shared volume %s", out, mount)
	}
	for _, f := range []string{"center", "zoom", "iterations", "size"} {
		if flag(args, f) == "" {
			t.Errorf("the shards give no --%s: every shard must draw the same view", f)
		}
	}
	if regexp.MustCompile(`^(gpu)?$`).MatchString(flag(args, "renderer")) {
		t.Error("the shards draw with the GPU renderer: a cluster's pods have no display; give --renderer=cpu")
	}

	// The assembly: the same N, the same file, the same volume and image.
	a := asm.Spec
	if a.CompletionMode != nil && *a.CompletionMode == batchv1.IndexedCompletion {
		t.Error("the assembly is Indexed")
	}
	ac := a.Template.Spec.Containers[0]
	aargs := append(append([]string{}, ac.Command...), ac.Args...)
	if ac.Command[len(ac.Command)-1] != "assemble" {
		t.Fatalf("the assembly runs %v", ac.Command)
	}
	if got := flag(aargs, "shards"); got != fmt.Sprint(n) {
		t.Errorf("the assembly's --shards=%s, the shards' Job has %d", got, n)
	}
	amount := sharedMount(t, "assemble", a.Template.Spec, pvc.Name)
	if got := strings.Replace(output(aargs), amount, mount, 1); got != out {
		t.Errorf("the assembly joins %s, the shards write %s", output(aargs), out)
	}
	if ac.Image != c.Image {
		t.Errorf("images differ: %s and %s", c.Image, ac.Image)
	}
}

// A misspelt field is refused, not ignored.
func TestStrict(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	writeFile(t, p, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionMod: Indexed\n")
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "completionMod") {
		t.Errorf("a misspelt field: %v", err)
	}
}
