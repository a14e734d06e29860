if [[ ${PROMPT_COMMAND[*]-} != *_cudaenv_hook* ]]; then
  if [[ -n ${PROMPT_COMMAND+set} && ${PROMPT_COMMAND@a} == *a* ]]; then
    PROMPT_COMMAND=(_cudaenv_hook "${PROMPT_COMMAND[@]}")
  else
    PROMPT_COMMAND="_cudaenv_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  fi
fi
