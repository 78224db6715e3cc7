% run_methods(DIR, METHOD, MAXN): the authors' MatchALS (mmatch_CVX_ALS.m) or
% MatchLift (MatchLift.m) as the CLEAR paper's harness calls them, on each
% DIR/pNN.txt of at most MAXN observations; writes the associated pairs
% (0-based, i<j) to pNN.matchals or pNN.matchlift.
function run_methods(dir, method, maxn)
  s = dir_list(dir);
  for f = 1:numel(s)
    [W, dims, m] = read_problem(s{f});
    if size(W,1) > maxn, continue; end
    rand('seed', 1); rand('state', 1);
    tic;
    switch method
      case 'matchals'
        X = mmatch_CVX_ALS(W, dims, 'univsize', 2*m, 'maxiter', 200, 'verbose', false);
      case 'matchlift'
        X = MatchLift(W, dims, m);
    end
    t = toc;
    [r, c] = find(triu(X, 1));
    out = [s{f}(1:end-4) '.' method];
    fid = fopen(out, 'w'); fprintf(fid, '%d %d\n', [r c]' - 1); fclose(fid);
    printf('%s: %d pairs, %.1f s\n', out, numel(r), t);
  end
end
