# fish completion for cudaenv. `cudaenv init fish` loads it; `cmake --install` puts it in
# vendor_completions.d. Versions and programs come from the CLI itself.
# Without cudaenv on PATH fish would print "Unknown command" into the command line.
function __cudaenv_ask
    command -q cudaenv; and command cudaenv $argv 2>/dev/null
end
function __cudaenv_programs
    set -l prefix (__cudaenv_ask prefix); or return
    for program in $prefix/bin/*
        test -f $program -a -x $program; and basename $program
    end
end

set -l commands install uninstall lock list-remote update versions add use global shell current which prefix exec env rehash init trust untrust torch mirror module doctor target config
complete -c cudaenv -f
complete -c cudaenv -l help -d 'Show help'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -l version -d 'Show the cudaenv version'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a install -d 'Install CUDA toolkits'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a uninstall -d 'Remove an installed toolkit'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a list-remote -d 'Versions that can be installed'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a lock -d 'Write cuda.lock (--check, --hash)'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a update -d 'Read the list of releases again'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a versions -d 'Installed and registered toolkits'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a add -d 'Register an existing toolkit'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a use -d 'Pin this project in ./cuda.toml'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a global -d 'Show or set the default version'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a shell -d 'Set the version for this shell'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a current -d 'The active version and its origin'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a which -d 'Real path of a toolkit program'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a prefix -d 'Root folder of a toolkit'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a exec -d 'Run a command with the active toolkit'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a env -d 'Print the active toolkit environment'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a rehash -d 'Rebuild the shims'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a init -d 'Print the shell integration'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a trust -d 'Allow the [env] of a cuda.toml and the servers its cuda.lock names'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a untrust -d 'Revoke what trust allowed'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a torch -d 'The matching PyTorch wheel index'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a mirror -d 'An offline mirror'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a module -d 'Modulefiles for clusters'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'Diagnose mismatches'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a config -d 'Every setting and where it came from'
complete -c cudaenv -n "not __fish_seen_subcommand_from $commands" -a target -d 'Save a GPU machine to resolve for elsewhere'

# list-remote may be missing from an older cudaenv, or offline: then nothing.
complete -c cudaenv -n '__fish_seen_subcommand_from install' -a '(__cudaenv_ask list-remote --bare --offline)'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l profile -x -a 'minimal torch full'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l component -x
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l mirror -x
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l jobs -x
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l force
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l platform -x -a 'linux-x86_64 linux-sbsa'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l keep-downloads
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l skip-manifest-pin
complete -c cudaenv -n '__fish_seen_subcommand_from install sync' -l no-progress -d 'No progress bars'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l library -x -a 'cudnn nccl'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l locked -d 'Exactly what cuda.lock holds'
complete -c cudaenv -n '__fish_seen_subcommand_from install' -l frozen -d 'cuda.lock as it is, never written'
complete -c cudaenv -n '__fish_seen_subcommand_from lock' -l platform -x -a 'linux-x86_64 linux-sbsa'
complete -c cudaenv -n '__fish_seen_subcommand_from lock' -l mirror -x
complete -c cudaenv -n '__fish_seen_subcommand_from lock' -l skip-manifest-pin
complete -c cudaenv -n '__fish_seen_subcommand_from lock' -l check -d 'Exit 1 when cuda.toml changed'
complete -c cudaenv -n '__fish_seen_subcommand_from lock' -l hash -d 'A cache key for CI'
complete -c cudaenv -n '__fish_seen_subcommand_from install list-remote lock' -l source -x -a 'redist pypi'
complete -c cudaenv -n '__fish_seen_subcommand_from install list-remote lock' -l index-url -x
complete -c cudaenv -n '__fish_seen_subcommand_from uninstall' -l yes -d 'Do not ask'
complete -c cudaenv -n '__fish_seen_subcommand_from uninstall use global shell prefix module' -a '(__cudaenv_ask versions --bare)'
complete -c cudaenv -n '__fish_seen_subcommand_from use global shell' -l unset -d 'Remove the setting'
complete -c cudaenv -n '__fish_seen_subcommand_from use' -l host-compiler -x -d 'The compiler nvcc uses for host code'
complete -c cudaenv -n '__fish_seen_subcommand_from use' -l unset-host-compiler -d 'Remove the host compiler'
complete -c cudaenv -n '__fish_seen_subcommand_from list-remote' -l mirror -x -d 'List what this mirror holds'
complete -c cudaenv -n '__fish_seen_subcommand_from list-remote' -l refresh -d 'Read the list of releases again'
complete -c cudaenv -n '__fish_seen_subcommand_from list-remote' -l offline -d 'No network: the cached or shipped list'
complete -c cudaenv -n '__fish_seen_subcommand_from update' -l mirror -x -d 'The redist folder to read'
complete -c cudaenv -n '__fish_seen_subcommand_from list-remote versions' -l bare -d 'Only the names'
complete -c cudaenv -n '__fish_seen_subcommand_from list-remote versions current torch doctor config' -l json -d 'Print JSON'
complete -c cudaenv -n '__fish_seen_subcommand_from add' -l as -x -d 'Name to register it under'
complete -c cudaenv -n '__fish_seen_subcommand_from add' -l scan -d 'Register every /usr/local/cuda-*'
complete -c cudaenv -n '__fish_seen_subcommand_from add' -F -a '(__fish_complete_directories)'
complete -c cudaenv -n '__fish_seen_subcommand_from which' -a '(__cudaenv_programs)'
complete -c cudaenv -n '__fish_seen_subcommand_from exec' -x -a '(__fish_complete_subcommand --fcs-skip=2)'
complete -c cudaenv -n '__fish_seen_subcommand_from exec' -l cuda -x -d 'Run with this CUDA version' -a '(__cudaenv_ask versions --bare)'
complete -c cudaenv -n '__fish_seen_subcommand_from env' -l shell -x -a 'bash zsh fish json github dotenv'
complete -c cudaenv -n '__fish_seen_subcommand_from init' -x -a 'bash zsh fish'
complete -c cudaenv -n '__fish_seen_subcommand_from trust untrust' -F
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l torch -x
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l cuda -x
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l driver -x
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l cpu
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l installer -x -a 'pip uv'
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l format -x -a 'command requirements pyproject'
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l packages -x -a 'torch,torchvision,torchaudio torch'
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l arch -x
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l offline
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l refresh
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l with -x -a 'flash-attn xformers vllm deepspeed bitsandbytes apex mamba-ssm causal-conv1d'
complete -c cudaenv -n '__fish_seen_subcommand_from torch' -l python -r
complete -c cudaenv -n '__fish_seen_subcommand_from mirror; and not __fish_seen_subcommand_from sync verify' -x -a 'sync verify'
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -a '(__cudaenv_ask list-remote --bare --offline)'
complete -c cudaenv -n '__fish_seen_subcommand_from verify' -x -a '(__fish_complete_directories)'
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l profile -x -a 'minimal torch full'
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l component -x
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l platform -x -a 'linux-x86_64 linux-sbsa'
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l mirror -x -d 'Upstream redist folder'
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l jobs -x
complete -c cudaenv -n '__fish_seen_subcommand_from sync' -l skip-manifest-pin
complete -c cudaenv -n '__fish_seen_subcommand_from mirror module' -l to -x -a '(__fish_complete_directories)'
complete -c cudaenv -n '__fish_seen_subcommand_from module' -l format -x -a 'lmod tcl'
complete -c cudaenv -n '__fish_seen_subcommand_from module' -l all
complete -c cudaenv -n '__fish_seen_subcommand_from doctor' -l python -r -F
complete -c cudaenv -n '__fish_seen_subcommand_from doctor' -l timeout -x -d 'Seconds the driver and Python probes may each take'
complete -c cudaenv -n '__fish_seen_subcommand_from target; and not __fish_seen_subcommand_from save list show remove' -x -a 'save list show remove'
complete -c cudaenv -n '__fish_seen_subcommand_from target; and __fish_seen_subcommand_from save' -l driver -x -d 'NVIDIA driver version'
complete -c cudaenv -n '__fish_seen_subcommand_from target; and __fish_seen_subcommand_from save' -l gpu -x -d 'A GPU compute capability'
complete -c cudaenv -n '__fish_seen_subcommand_from target; and __fish_seen_subcommand_from save' -l cuda -x -d 'The CUDA the driver runs'
