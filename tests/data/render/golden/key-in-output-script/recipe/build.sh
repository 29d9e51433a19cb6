echo ${k_top_build_sh}
